# Hadoop job semantics that the controller and the task runtime share: the
# built-in applications' table (what a job may name and what each takes).
LIBRARIES += mapred
mapred_SOURCES := $(wildcard mapred/*.c)
mapred_DEPS :=
mapred_PKGS :=
