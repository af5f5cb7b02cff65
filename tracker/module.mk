# flexslot-tracker's task runtime: input splits, the applications, the map
# side's sort buffer and the reduce side's merge, running a task as a child
# under a memory limit, and its progress. flexslot-task runs one task from
# the command line.
LIBRARIES += tracker
tracker_SOURCES := $(filter-out tracker/task-main.c,$(wildcard tracker/*.c))

PROGRAMS += flexslot-task
flexslot-task_SOURCES := tracker/task-main.c
flexslot-task_INSTALL_DIR := bin

INSTALL_DATA += packaging/flexslot-task.1:$(PREFIX)/share/man/man1/flexslot-task.1
