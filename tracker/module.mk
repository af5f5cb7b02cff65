# flexslot-tracker's task runtime (line records of a split, the
# applications, the map side's sort buffer and the reduce side's merge,
# running a task as a child under a memory limit, and its progress) and
# the daemon's testable parts (its configuration, tasks and link to the
# controller). flexslot-task runs one task from the command line.
LIBRARIES += tracker
tracker_SOURCES := $(filter-out tracker/task-main.c tracker/trackerd.c,$(wildcard tracker/*.c))
tracker_DEPS := proto mapred daemon common
tracker_PKGS := libsystemd

PROGRAMS += flexslot-task
flexslot-task_SOURCES := tracker/task-main.c
flexslot-task_DEPS := tracker
flexslot-task_INSTALL_DIR := bin

INSTALL_DATA += packaging/flexslot-task.1:$(PREFIX)/share/man/man1/flexslot-task.1

# flexslot-tracker: the daemon of one VM that runs the controller's tasks as
# flexslot-task children.
PROGRAMS += flexslot-tracker
flexslot-tracker_SOURCES := tracker/trackerd.c
flexslot-tracker_DEPS := tracker daemon
flexslot-tracker_INSTALL_DIR := sbin

INSTALL_DATA += conf/tracker.ini:$(SYSCONFDIR)/flexslot/tracker.ini \
	packaging/flexslot-tracker.service.in:$(PREFIX)/lib/systemd/system/flexslot-tracker.service \
	packaging/flexslot-tracker.8:$(PREFIX)/share/man/man8/flexslot-tracker.8
