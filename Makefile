# flexslot build. Each directory describes itself in a module.mk:
#   LIBRARIES += name          name_SOURCES := ...   (a static library)
#   PROGRAMS  += prog          prog_SOURCES := ...   prog_INSTALL_DIR := bin|sbin
#   BENCH_PROGRAMS += prog     prog_SOURCES := ...   (built, never installed)
#   INSTALL_DATA += src:/absolute/destination   (a src ending in .in has its
#                  @PREFIX@, @BINDIR@, @SBINDIR@, @SYSCONFDIR@ filled in; a file
#                  under SYSCONFDIR that exists already is the admin's: kept;
#                  the groups and users of a file installed into a sysusers.d
#                  directory are created by an install without DESTDIR)
#   name_DEPS := lib ...      the libraries a library or program uses directly
#   name_PKGS := pkg ...      the pkg-config packages its own sources use
# A program links the closure of what it declares (as one group, so the order
# between libraries does not matter), and every object is compiled with the
# packages of its library's closure only: a call or an include across a
# boundary that module.mk does not declare fails to build. tools/layers.sh
# (in `make lint`) holds the includes to the same floors.
#
# BUILD=dir puts all output under dir (default build/); SANITIZE=1 builds with
# AddressSanitizer and UndefinedBehaviorSanitizer. `make check` runs the tests
# in both. INSTALL_DEPS=0 skips the dependency step (packaging/deps.sh), as a
# package build does, whose Build-Depends stand in for it.

BUILD ?= build
PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
# Outside PREFIX: the system bus reads policies only from here (packages) and
# /etc/dbus-1/system.d (the admin's), whatever the PREFIX.
DBUS_SYSTEM_DIR ?= /usr/share/dbus-1/system.d
SANITIZE ?= 0
INSTALL_DEPS ?= 1
# `make deb` puts the Debian packages here.
DEB_DIR ?= $(BUILD)/deb

CC ?= cc
PKGS := libvirt libsystemd inih sqlite3 json-c libcurl
TEST_PKGS := check

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARNINGS) $(CPPFLAGS) $(CFLAGS) -D_GNU_SOURCE -I. -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) -Wl,--as-needed
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
ALL_CFLAGS += $(SAN_FLAGS) -O1
ALL_LDFLAGS += $(SAN_FLAGS)
endif

.DEFAULT_GOAL := all
NO_CONFIG_GOALS := clean distclean help format deb
ifneq ($(filter-out $(NO_CONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
# Make remakes this file before anything else: that runs the dependency step
# on a fresh machine and caches the pkg-config flags for the build.
include $(BUILD)/config.mk
endif

# Each module.mk names its packages (NAME_PKGS): a package one adds must
# reach the flags here, or an existing build tree links without it.
$(BUILD)/config.mk: packaging/deps.sh Makefile $(wildcard */module.mk)
	@[ "$(INSTALL_DEPS)" = 0 ] || packaging/deps.sh
	@mkdir -p $(@D)
	@for p in $(PKGS) $(TEST_PKGS); do \
	   echo "PKG_CFLAGS_$$p := $$(pkg-config --cflags $$p)"; \
	   echo "PKG_LIBS_$$p := $$(pkg-config --libs $$p)"; \
	 done > $@.tmp
	@mv $@.tmp $@

LIBRARIES :=
PROGRAMS :=
BENCH_PROGRAMS :=
include $(sort $(wildcard */module.mk))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
lib_file = $(foreach l,$(1),$(BUILD)/lib/libflexslot-$(l).a)
LIB_FILES := $(call lib_file,$(LIBRARIES))
# The libraries $(1) use, directly or through others.
closure = $(sort $(foreach l,$(1),$(l) $(call closure,$($(l)_DEPS))))
# The packages of $(1) and of everything it uses.
closure_pkgs = $(sort $(foreach l,$(1) $(call closure,$($(1)_DEPS)),$($(l)_PKGS)))
pkg_cflags = $(foreach p,$(1),$(PKG_CFLAGS_$(p)))
pkg_libs = $(foreach p,$(1),$(PKG_LIBS_$(p))) -lm
# A library or program that declares no dependencies is a mistake in its
# module.mk, not a leaf: a leaf says `name_DEPS :=` with nothing after it.
check_declared = $(if $(filter undefined,$(origin $(1)_DEPS)),\
	$(error $(1) in $(2) declares no $(1)_DEPS (see the top of the Makefile)))

# $(1): library
define library_rules
$(call check_declared,$(1),$(firstword $($(1)_SOURCES)))
$(BUILD)/lib/libflexslot-$(1).a: $(call obj,$($(1)_SOURCES))
	@mkdir -p $$(@D)
	@rm -f $$@
	ar rcs $$@ $$^
$(call obj,$($(1)_SOURCES)): OBJ_CFLAGS = $$(call pkg_cflags,$(call closure_pkgs,$(1)))
ALL_OBJS += $(call obj,$($(1)_SOURCES))
endef

# $(1): program, $(2): directory under $(BUILD)
define program_rules
$(call check_declared,$(1),$(firstword $($(1)_SOURCES)))
$(BUILD)/$(2)/$(1): $(call obj,$($(1)_SOURCES)) $(call lib_file,$(call closure,$($(1)_DEPS)))
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $(call obj,$($(1)_SOURCES)) \
		-Wl,--start-group $(call lib_file,$(call closure,$($(1)_DEPS))) -Wl,--end-group \
		$$(call pkg_libs,$(call closure_pkgs,$(1)))
$(call obj,$($(1)_SOURCES)): OBJ_CFLAGS = $$(call pkg_cflags,$(call closure_pkgs,$(1)))
ALL_OBJS += $(call obj,$($(1)_SOURCES))
endef

$(foreach l,$(LIBRARIES),$(eval $(call library_rules,$(l))))
$(foreach p,$(PROGRAMS),$(eval $(call program_rules,$(p),bin)))
$(foreach p,$(BENCH_PROGRAMS),$(eval $(call program_rules,$(p),bench)))

# Benchmarks are built with everything, so that `make check` compiles them.
PROGRAM_FILES := $(foreach p,$(PROGRAMS),$(BUILD)/bin/$(p)) \
	$(foreach p,$(BENCH_PROGRAMS),$(BUILD)/bench/$(p))

$(BUILD)/obj/%.o: %.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(OBJ_CFLAGS) -c -o $@ $<

# Tests: tests/check_<name>.c defines Suite *suite_<name>(void); the runner's
# list of suites is generated from the file names, and rewritten only when it
# changes so that adding nothing rebuilds nothing.
TEST_SOURCES := $(sort $(wildcard tests/*.c))
TEST_SUITES := $(patsubst tests/check_%.c,%,$(filter tests/check_%.c,$(TEST_SOURCES)))
TEST_OBJS := $(call obj,$(TEST_SOURCES))
TEST_RUNNER := $(BUILD)/tests/flexslot-tests

$(BUILD)/tests/suites.h: FORCE
	@mkdir -p $(@D)
	@printf 'SUITE(%s)\n' $(TEST_SUITES) > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@
	@rm -f $@.tmp

# The tests check every library, so they are built and linked with all.
$(BUILD)/obj/tests/%.o: tests/%.c $(BUILD)/config.mk $(BUILD)/tests/suites.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/tests $(call pkg_cflags,$(PKGS) $(TEST_PKGS)) -c -o $@ $<

$(TEST_RUNNER): $(TEST_OBJS) $(LIB_FILES)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(TEST_OBJS) -Wl,--start-group $(LIB_FILES) -Wl,--end-group \
		$(call pkg_libs,$(PKGS) $(TEST_PKGS))

-include $(ALL_OBJS:.o=.d) $(TEST_OBJS:.o=.d)

.PHONY: all check check-run tests install uninstall clean distclean lint format \
	demo bench deb help FORCE

all: $(LIB_FILES) $(PROGRAM_FILES)

tests: all $(TEST_RUNNER)

# Modules add their benchmarks as prerequisites ("bench: bench-sim") and the
# simulator module gives demo its recipe.
bench: all

# Runs every suite in this build; FLEXSLOT_BUILD tells integration tests where
# the programs are. CK_RUN_SUITE=name runs one suite.
check-run: tests
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) \
		FLEXSLOT_SANITIZE=$(SANITIZE) \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
		$(TEST_RUNNER)

# The plain build first, then the same suites under ASan and UBSan, so the
# output ends with the sanitizer run's summary line.
check: check-run
	$(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize SANITIZE=1 check-run

# An install without DESTDIR is a real one: it creates the groups and users
# of the sysusers.d files now, as a package's postinst would, rather than
# leave them to the next boot of a system that runs systemd-sysusers.
install: all
	$(foreach p,$(PROGRAMS),install -D -m 0755 $(BUILD)/bin/$(p) \
		$(DESTDIR)$(PREFIX)/$(or $($(p)_INSTALL_DIR),bin)/$(p);)
	@set -e; for pair in $(INSTALL_DATA); do \
		src=$${pair%%:*}; dest=$(DESTDIR)$${pair#*:}; \
		case $$dest in $(DESTDIR)$(SYSCONFDIR)/*) if [ -e "$$dest" ]; then \
			echo "keeping $$dest (edited configuration)"; continue; fi ;; esac; \
		echo "install $$src $$dest"; \
		case $$src in \
		*.in) mkdir -p "$$(dirname "$$dest")"; \
		      sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(PREFIX)/bin|g' \
		          -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		          "$$src" > "$$dest.tmp"; \
		      chmod 0644 "$$dest.tmp"; mv "$$dest.tmp" "$$dest" ;; \
		*) install -D -m 0644 "$$src" "$$dest" ;; \
		esac; \
	done
	@set -e; [ -z "$(DESTDIR)" ] || exit 0; \
	for pair in $(INSTALL_DATA); do \
		dest=$${pair#*:}; \
		case $$dest in */sysusers.d/*.conf) ;; *) continue ;; esac; \
		if command -v systemd-sysusers >/dev/null; then \
			echo "systemd-sysusers $$dest"; systemd-sysusers "$$dest"; \
		else \
			for group in $$(awk '$$1 == "g" { print $$2 }' "$$dest"); do \
				getent group "$$group" >/dev/null && continue; \
				echo "groupadd --system $$group"; groupadd --system "$$group"; \
			done; \
			for user in $$(awk '$$1 == "u" { print $$2 }' "$$dest"); do \
				getent passwd "$$user" >/dev/null && continue; \
				echo "useradd --system $$user"; \
				useradd --system --user-group --no-create-home --home-dir / \
					--shell /usr/sbin/nologin "$$user"; \
			done; \
		fi; \
	done

# Configuration under SYSCONFDIR stays: it may hold the admin's edits; so do
# the groups and users, which files may still belong to.
uninstall:
	$(foreach p,$(PROGRAMS),rm -f $(DESTDIR)$(PREFIX)/$(or $($(p)_INSTALL_DIR),bin)/$(p);)
	@for pair in $(INSTALL_DATA); do \
		dest=$(DESTDIR)$${pair#*:}; \
		case $$dest in \
		$(DESTDIR)$(SYSCONFDIR)/*) echo "keeping $$dest" ;; \
		*) rm -f "$$dest" ;; \
		esac; \
	done

clean:
	rm -rf $(BUILD)

# Debian packages (packaging/debian), built out of the tree from what
# `install` installs, with debhelper; nothing again while the tree is the
# same (packaging/build-deb.sh).
deb:
	@packaging/deps.sh --build
	@packaging/deps.sh --deb
	@packaging/build-deb.sh $(DEB_DIR)

distclean: clean

LINT_SOURCES = $(foreach l,$(LIBRARIES),$($(l)_SOURCES)) \
	$(foreach p,$(PROGRAMS) $(BENCH_PROGRAMS),$($(p)_SOURCES))

# Both install their tools first (packaging/deps.sh --lint): building and
# testing do not need them.
lint: $(BUILD)/config.mk
	@packaging/deps.sh --lint
	@tools/layers.sh
	@tools/lint.sh $(LINT_SOURCES) --cppcheck-only $(TEST_SOURCES) $(wildcard tests/fuzz/*.c) \
		-- -std=gnu11 -D_GNU_SOURCE -I. $(call pkg_cflags,$(PKGS))

format:
	@packaging/deps.sh --lint
	clang-format -i $$(git ls-files '*.c' '*.h')

help:
	@echo "make            build everything into $(BUILD)/"
	@echo "make check      run all test suites, plain and with ASan/UBSan"
	@echo "make demo       run the simulator's demonstration experiment"
	@echo "make demo-live  the daemons on this machine: wordcount stock, then FlexSlot"
	@echo "make demo-vm    the same on three real QEMU guests (root)"
	@echo "make demo-yarn  the controller driving a real YARN (Hadoop's mini cluster)"
	@echo "make vmexp      the real-guest experiment, arms A-F against the prediction (root;"
	@echo "                1.5-3 h; make vmexp-quick: a few minutes)"
	@echo "make replay-vm  the first 100 jobs of Facebook's trace on real guests beside the"
	@echo "                simulator's prediction (root; make replay-vm-quick: 10 jobs)"
	@echo "make slo-live   ARIA alone, ARIA with the lever, the one loop on real guests beside"
	@echo "                a tenant's busy guest (root; make slo-live-quick: a few minutes)"
	@echo "make bench      run the benchmarks"
	@echo "make lint       the floors (tools/layers.sh), cppcheck and clang-tidy: findings and a verdict"
	@echo "make fuzz       the libFuzzer targets, each for FUZZ_SECONDS (default 60)"
	@echo "make chaos      random messages at a live controller for CHAOS_SECONDS (default 30)"
	@echo "make format     clang-format every C file in place"
	@echo "make install    install into DESTDIR/PREFIX (default $(PREFIX))"
	@echo "make deb        Debian packages into $(DEB_DIR)/ (DEB_DIR=...)"
	@echo "make clean      remove $(BUILD)/"
	@echo "variables: BUILD=dir SANITIZE=1 PREFIX=... DESTDIR=... SYSCONFDIR=... CFLAGS=..."
	@echo "           DBUS_SYSTEM_DIR=... (default $(DBUS_SYSTEM_DIR), whatever the PREFIX)"

FORCE:
