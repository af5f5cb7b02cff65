LIBRARIES += policy
policy_SOURCES := $(wildcard controller/core/*.c) $(wildcard controller/policies/*.c)
