# lace — Layout And Cache Evaluator.  One top-level build.
#
#   make            set up (install missing Debian packages), then build the
#                   whole product: build/lace, the simulator tool, the workloads
#   make setup      only install the missing Debian packages (as root)
#   make check      set up, build, run unit + integration tests
#   make bench      run the benchmarks (ratios measured side by side)
#   make study      set up, build, run the built-in study
#   make study-kernel  the study on real kernels (lace study --kernel)
#   make study-doc  doc/study.md's study sections from the latest results
#   make install    PREFIX=/usr/local DESTDIR=
#   V=1             show commands;  SANITIZE=1  build with ASan+UBSan
#
# Each module folder has a module.mk that adds its sources and rules; this
# file holds only what they share.  A module is compiled into build/lib<mod>.a;
# `lace` links the command files in cli/ against every module archive.
#
# Setup comes first: the goals that install packages (all, check, bench,
# study, install) run setup, then build in a sub-make, because the flags
# below come from pkg-config and from what is installed when make reads this
# file; read before setup, they would be empty on a fresh machine.

VERSION := 0.1.0
PREFIX  ?= /usr/local
DESTDIR ?=
# sanitizer builds get their own tree so objects never mix with the normal build
BUILD   := build$(if $(filter 1,$(SANITIZE)),-san)
# the installer (a variable so a test can stand in for apt-get)
SETUP_DEPS ?= scripts/setup-deps.sh
PKG_CONFIG ?= pkg-config
# goals that run setup before anything is built (see the note above)
SETUP_FIRST_GOALS := all check bench study study-kernel install setup setup-test check-kernel

ifeq ($(V),1)
Q :=
else
Q := @
endif

CC      ?= gcc
DEP_PKGS   := libdw libelf gsl jansson inih libzstd
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DEP_PKGS) 2>/dev/null)
DEP_LIBS   := -lbfd-multiarch -lopcodes-multiarch \
              $(shell $(PKG_CONFIG) --libs $(DEP_PKGS) 2>/dev/null) -lpfm -lz -lm -lpthread
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
# JSON output, as a user script would; pipeline/kstudy is the kernel study
# (lace study --kernel): its jobs, plan, readings and report.
# measure/ is the perf-stat engine; its rooms: measure/stats (statistics
# and rendering: pure, runs no program), measure/model (the freestanding
# front-end models), measure/vg (the Valgrind host: the backend and, built
# by its module.mk, the tool), measure/qemu (the QEMU host: the backend,
# the TCG plugin, the guest) and measure/replay (recordings and their
# replay through other layouts: runs no program).  The engine and the statistics use each other's
# types both ways, so the archives are linked as one group.
MODULES := pipeline pipeline/kstudy variants layout measure measure/qemu measure/vg measure/replay \
           measure/stats measure/model util

LACE      := $(BUILD)/lace
CLI_SRCS  := $(wildcard cli/*.c)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/%.o)
mod_srcs   = $(wildcard $(1)/*.c)
mod_objs   = $(patsubst %.c,$(BUILD)/%.o,$(call mod_srcs,$(1)))
MOD_LIBS  := $(foreach m,$(MODULES),$(BUILD)/lib$(subst /,_,$(m)).a)
# how a program links them (see MODULES: one group)
MOD_LINK   = -Wl,--start-group $(MOD_LIBS) -Wl,--end-group

# Fragments add to these.
UNIT_TESTS    :=
ALL_TARGETS   := $(LACE)
EXTRA_LIBS    :=
CHECK_DEPS    :=
BENCH_TARGETS :=
INSTALL_HOOKS :=

.PHONY: all all-targets setup setup-test check unit integration bench bench-run study study-kernel study-doc \
	install install-files clean fuzz deps-check
all: setup
	$(Q)$(MAKE) --no-print-directory all-targets

setup:
	$(Q)$(SETUP_DEPS) build
# after setup, so that under -j the two never race for the apt lock
setup-test: setup
	$(Q)$(SETUP_DEPS) test

# a link without the libraries' flags fails with a thousand undefined
# references; say the one thing that is wrong instead
deps-check:
	$(Q)missing=; for p in $(DEP_PKGS); do $(PKG_CONFIG) --exists $$p || missing="$$missing $$p"; done; \
	[ -z "$$missing" ] || { echo "lace: pkg-config does not know$$missing (run 'make setup' as root)" >&2; exit 1; }

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

$(LACE): $(CLI_OBJS) $(MOD_LIBS) | deps-check
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(MOD_LINK) $(EXTRA_LIBS) $(DEP_LIBS)

# ---- tests --------------------------------------------------------------
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: tests/unit/%.c $(MOD_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(MOD_LINK) $(EXTRA_LIBS) $(DEP_LIBS) -lcmocka

unit: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(UNIT_BINS)

# Integration tests run one per core (run.sh's JOBS: each result still
# printed whole, in list order): one at a time they made `make check` take
# 933 s on CI's 2 cores, over the 15 minutes it must stay well under.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
integration: $(ALL_TARGETS) $(CHECK_DEPS)
	$(Q)JOBS=$(TEST_JOBS) LACE=$(abspath $(LACE)) BUILD=$(abspath $(BUILD)) tests/integration/run.sh

check: setup-test
	$(Q)$(MAKE) --no-print-directory all-targets
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory integration

all-targets: $(ALL_TARGETS) $(CHECK_DEPS)

bench: setup-test
	$(Q)$(MAKE) --no-print-directory bench-run
bench-run: $(ALL_TARGETS) $(BENCH_TARGETS)
	$(Q)LACE=$(abspath $(LACE)) BUILD=$(abspath $(BUILD)) bench/run-bench.sh

study: setup-test
	$(Q)$(MAKE) --no-print-directory all-targets
	$(Q)$(LACE) study --out $(BUILD)/study

# the study on real kernels (lace study --kernel): kernel builds (about 20
# minutes the first time on 2 cores), then a few minutes of QEMU boots
study-kernel:
	$(Q)$(SETUP_DEPS) kernel
	$(Q)$(MAKE) --no-print-directory all-targets
	$(Q)$(LACE) study --kernel --out $(BUILD)/study-kernel --kernels $(BUILD)/kernels

# doc/study.md's generated sections, rendered from doc/study-kernel-results.json
# and doc/study-results.json; after a study (make study-kernel, make study),
# from its results.json, which then replaces the committed file
STUDY_DOC_FROM = $(if $(wildcard $(BUILD)/study-kernel/results.json),--kernel $(BUILD)/study-kernel/results.json) \
	$(if $(wildcard $(BUILD)/study/results.json),--model $(BUILD)/study/results.json)
study-doc: $(LACE)
	$(Q)LACE=$(abspath $(LACE)) scripts/study-doc.sh $(STUDY_DOC_FROM)

install: setup
	$(Q)$(MAKE) --no-print-directory install-files
# The cache fetchers go next to the installed sources: lace study --kernel
# runs fetch-guest.sh (which calls the others) from there; fetch-deb.sh, which
# every one of them downloads through, reads the pins in downloads.manifest.
install-files: $(ALL_TARGETS) $(INSTALL_HOOKS)
	install -D -m 0755 $(LACE) $(DESTDIR)$(PREFIX)/bin/lace
	for m in doc/*.1; do [ -f "$$m" ] && install -D -m 0644 "$$m" $(DESTDIR)$(PREFIX)/share/man/man1/$$(basename $$m); done; true
	install -D -m 0644 scripts/lace-completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lace
	install -D -m 0644 doc/lace-check.ini $(DESTDIR)$(PREFIX)/share/doc/lace/lace-check.ini
	for f in scripts/fetch-*.sh; do install -D -m 0755 "$$f" $(DESTDIR)$(PREFIX)/share/lace/src/$$f; done
	install -D -m 0644 scripts/downloads.manifest $(DESTDIR)$(PREFIX)/share/lace/src/scripts/downloads.manifest

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
