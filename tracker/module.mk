# flexslot-tracker's task runtime: input splits, the applications, the map
# side's sort buffer and the reduce side's merge, and a task's progress.
LIBRARIES += tracker
tracker_SOURCES := $(wildcard tracker/*.c)
