# libFuzzer targets, tests/fuzz/fuzz-NAME.c: the configuration loader on
# the daemons' schemas (config), a map output file as a reduce reads it
# (mapout), the task runtime's line records through every built-in
# application's map (lines), Tracker1's decoders, the heartbeat's first, on
# messages of any shape (tracker1), and the decoders of YARN's REST answers
# (yarn). `make fuzz` builds them and the libraries with
# clang under AddressSanitizer and UndefinedBehaviorSanitizer into
# $(BUILD)/fuzz, then runs each for FUZZ_SECONDS (default 60) from its
# seed corpus tests/fuzz/corpus/NAME, keeping what it finds in
# $(BUILD)/fuzz/corpus/NAME. A crash stops the run; its input is left as
# $(BUILD)/fuzz/crashes/NAME-crash-*, to be run again as
# `$(BUILD)/fuzz/fuzz-bin/fuzz-NAME FILE`.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
# What the targets share: messages of any shape (bus-shape.h).
FUZZ_SHARED := tests/fuzz/bus-shape.c
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: fuzz fuzz-targets

# Run inside the fuzz build (BUILD=$(FUZZ_DIR), CC=clang): the libraries
# instrumented for coverage, each target linked with libFuzzer's main.
fuzz-targets: $(foreach t,$(FUZZ_TARGETS),$(BUILD)/fuzz-bin/$(t))

# The libraries' list is complete only once every module.mk is read.
.SECONDEXPANSION:
$(BUILD)/fuzz-bin/%: tests/fuzz/%.c $(FUZZ_SHARED) $$(LIB_FILES)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(call pkg_cflags,$(PKGS)) -fsanitize=fuzzer -o $@ $< $(FUZZ_SHARED) \
		-Wl,--start-group $(LIB_FILES) -Wl,--end-group $(call pkg_libs,$(PKGS))

fuzz: $(BUILD)/config.mk
	@packaging/deps.sh --fuzz
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR) CC=$(FUZZ_CC) \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" LDFLAGS="$(FUZZ_SAN)" fuzz-targets
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/crashes; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		status=0; \
		$(FUZZ_DIR)/fuzz-bin/$$t -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crashes/$$t- \
			$(FUZZ_DIR)/corpus/$$t tests/fuzz/corpus/$${t#fuzz-} >$(FUZZ_DIR)/$$t.log 2>&1 || \
			status=$$?; \
		grep -E '^stat::(number_of_executed_units|new_units_added)|^SUMMARY|^==[0-9]+==ERROR' \
			$(FUZZ_DIR)/$$t.log || true; \
		[ $$status -eq 0 ] || { echo "fuzz: $$t failed (see $(FUZZ_DIR)/$$t.log)"; exit 1; }; \
	done

# flexslot-chaos-client: idle connections to the tracker endpoint (and random
# messages to it and to Controller1), for the integration tests that check
# that the controller shrugs them off (tests/integration/controller-endpoint.sh,
# controller-fds.sh).
BENCH_PROGRAMS += flexslot-chaos-client
flexslot-chaos-client_SOURCES := tests/chaos/chaos-client.c tests/fuzz/bus-shape.c bench/tracker-conn.c
flexslot-chaos-client_DEPS := proto common

# make chaos: the random-message client against a live controller for
# CHAOS_SECONDS (30 by default; make check runs the script for 5);
# CHAOS_SEED=N sends the messages of an earlier run again.
CHAOS_SECONDS ?= 30
.PHONY: chaos
chaos: all
	CHAOS_SECONDS=$(CHAOS_SECONDS) FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) \
		sh tests/integration/controller-chaos.sh
