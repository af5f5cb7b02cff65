# Hadoop 1's job semantics that the controller and the trackers must agree
# on: FileInputFormat's input splits and their FILE:OFFSET:LENGTH form, and
# the names of task attempts' outputs. Includes only common/.
LIBRARIES += mapred
mapred_SOURCES := $(wildcard mapred/*.c)
