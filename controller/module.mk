LIBRARIES += policy
policy_SOURCES := $(wildcard controller/core/*.c) $(wildcard controller/policies/*.c)
# The controller's durable store (SQLite): jobs, their task attempts, ARIA
# profiles. Not part of the policy core, which does no I/O.
LIBRARIES += store
store_SOURCES := $(wildcard controller/store/*.c)
