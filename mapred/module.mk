# Hadoop 1's job semantics that the controller and the trackers must agree
# on: FileInputFormat's input splits and their FILE:OFFSET:LENGTH form, the
# names of task attempts' outputs, and the built-in applications' table
# (what a job may name and what each takes). Includes only common/.
LIBRARIES += mapred
mapred_SOURCES := $(wildcard mapred/*.c)
mapred_DEPS := common
mapred_PKGS :=
