# lace — Layout And Cache Evaluator.  One top-level build.
#
#   make            build build/lace (and the simulator when valgrind is present)
#   make check      set up, build, run unit + integration tests
#   make bench      run the benchmarks (ratios measured side by side)
#   make study      set up, build, run the built-in study
#   make install    PREFIX=/usr/local DESTDIR=
#   V=1             show commands;  SANITIZE=1  build with ASan+UBSan
#
# Each module folder has a module.mk that adds its sources and rules; this
# file holds only what they share.  A module is compiled into build/lib<mod>.a;
# `lace` links the command files in cli/ against every module archive.

VERSION := 0.1.0
PREFIX  ?= /usr/local
DESTDIR ?=
# sanitizer builds get their own tree so objects never mix with the normal build
BUILD   := build$(if $(filter 1,$(SANITIZE)),-san)

ifeq ($(V),1)
Q :=
else
Q := @
endif

CC      ?= gcc
DEP_CFLAGS := $(shell pkg-config --cflags libdw libelf gsl jansson inih 2>/dev/null)
DEP_LIBS   := -lbfd-multiarch -lopcodes-multiarch \
              $(shell pkg-config --libs libdw libelf gsl jansson inih 2>/dev/null) -lpfm -lz -lm -lpthread
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -I. -I$(BUILD)/gen $(DEP_CFLAGS) \
             -DLACE_VERSION='"$(VERSION)"' -D_GNU_SOURCE -MMD -MP
LDFLAGS ?=

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
# the sanitizers' instrumentation makes GCC's flow-based warnings misfire
# (documented with -fsanitize); the normal build keeps them as errors
WARN    += -Wno-error=format-truncation -Wno-error=maybe-uninitialized \
           -Wno-error=stringop-overflow -Wno-error=array-bounds
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS ?= suppressions=$(abspath tests/lsan.supp):print_suppressions=0
endif

# Modules linked into lace, in link order (users before what they use).
# pipeline/ drives the other commands (lace check, lace study) through their
# JSON output, as a user script would.
# measure/sim holds the freestanding cache/TLB models and the backend that
# launches the Valgrind tool; the tool itself is built by its module.mk.
MODULES := pipeline layout measure measure/sim util

LACE      := $(BUILD)/lace
CLI_SRCS  := $(wildcard cli/*.c)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/%.o)
mod_srcs   = $(wildcard $(1)/*.c)
mod_objs   = $(patsubst %.c,$(BUILD)/%.o,$(call mod_srcs,$(1)))
MOD_LIBS  := $(foreach m,$(MODULES),$(BUILD)/lib$(subst /,_,$(m)).a)

# Fragments add to these.
UNIT_TESTS    :=
ALL_TARGETS   := $(LACE)
EXTRA_LIBS    :=
CHECK_DEPS    :=
BENCH_TARGETS :=
INSTALL_HOOKS :=

.PHONY: all setup setup-test check unit integration bench study install clean fuzz
all: setup $(LACE)

setup:
	$(Q)scripts/setup-deps.sh build
setup-test:
	$(Q)scripts/setup-deps.sh test

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

define module_rule
$(BUILD)/lib$(subst /,_,$(1)).a: $(call mod_objs,$(1))
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  AR      $$@")
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
-include $(wildcard */module.mk */*/module.mk)

# (empty archives are fine: a module with no sources yet links as nothing)
$(foreach m,$(MODULES),$(eval $(call module_rule,$(m))))

$(LACE): $(CLI_OBJS) $(MOD_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(MOD_LIBS) $(EXTRA_LIBS) $(DEP_LIBS)

# ---- tests --------------------------------------------------------------
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: tests/unit/%.c $(MOD_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(MOD_LIBS) $(EXTRA_LIBS) $(DEP_LIBS) -lcmocka

unit: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(UNIT_BINS)

integration: $(ALL_TARGETS) $(CHECK_DEPS)
	$(Q)LACE=$(abspath $(LACE)) BUILD=$(abspath $(BUILD)) tests/integration/run.sh

check: setup setup-test
	$(Q)$(MAKE) --no-print-directory all-targets
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory integration

all-targets: $(ALL_TARGETS) $(CHECK_DEPS)

bench: setup setup-test $(ALL_TARGETS) $(BENCH_TARGETS)
	$(Q)LACE=$(abspath $(LACE)) BUILD=$(abspath $(BUILD)) bench/run-bench.sh

study: setup setup-test $(ALL_TARGETS)
	$(Q)$(LACE) study

install: $(ALL_TARGETS) $(INSTALL_HOOKS)
	install -D -m 0755 $(LACE) $(DESTDIR)$(PREFIX)/bin/lace
	for m in doc/*.1; do [ -f "$$m" ] && install -D -m 0644 "$$m" $(DESTDIR)$(PREFIX)/share/man/man1/$$(basename $$m); done; true
	install -D -m 0644 scripts/lace-completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lace
	install -D -m 0644 doc/lace-check.ini $(DESTDIR)$(PREFIX)/share/doc/lace/lace-check.ini

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
