# bench/: the workloads (hackbench, faultbench, randaccess) and the
# code-footprint generator.  Not linked into lace.  This fragment builds the
# host versions build/bench/{hackbench,faultbench,randaccess} against the
# study code (probes/, hashmmu/) with lace's own flags, for
# the tests; `lace build` builds the same sources into every variant.
# Objects here use lace's flags (-O2 -g, -Werror).
#
# What each workload is made of is read from bench/workloads.conf, the list
# `lace build` reads too, so the two builds cannot drift apart.

BENCH_CONF := bench/workloads.conf
# $(call bench_conf,SECTION,KEY): the value of KEY in [SECTION]
bench_conf = $(shell awk -v sec='[$(1)]' -v key='$(2)' -F' *= *' \
	'/^\[/ { s = $$0; next } s == sec && $$1 == key { print $$2 }' $(BENCH_CONF))

BENCH_WORKLOADS := hackbench faultbench randaccess
BENCH_GEN       := $(BUILD)/bench/gen_handlers
BENCH_GEN_DIR   := $(BUILD)/gen/bench
BENCH_GEN_ARGS  := $(call bench_conf,generator,args)
BENCH_GEN_SRCS  := $(addprefix $(BENCH_GEN_DIR)/,$(call bench_conf,generator,outputs))
BENCH_GEN_OBJS  := $(BENCH_GEN_SRCS:.c=.o)
BENCH_COMMON    := $(call bench_conf,common,sources)
BENCH_LIBS      := $(call bench_conf,common,libs) -lm
BENCH_BINS      := $(addprefix $(BUILD)/bench/,$(BENCH_WORKLOADS))
# The study code, as workloads.conf defines it: every .c directly in each
# `study` folder, as objects (built by the generic rule, shared with
# probes/module.mk's archive) so no archive name couples the two fragments.
BENCH_STUDY_OBJS := $(patsubst %.c,$(BUILD)/%.o,\
	$(foreach d,$(call bench_conf,common,study),$(wildcard $(d)/*.c)))

# The generator is a host tool: plain flags, no project libraries.
$(BENCH_GEN): bench/gen_handlers.c bench/handlers.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -I. -o $@ $< $(call bench_conf,generator,libs)

# One run writes every output; the stamp stands for all of them.
$(BENCH_GEN_DIR)/.stamp: $(BENCH_GEN) $(BENCH_CONF)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $(BENCH_GEN_DIR) ($(BENCH_GEN_ARGS))")
	$(Q)$(BENCH_GEN) --out $(BENCH_GEN_DIR) $(BENCH_GEN_ARGS)
	$(Q)touch $@
$(BENCH_GEN_SRCS): $(BENCH_GEN_DIR)/.stamp ;

$(BENCH_GEN_DIR)/%.o: $(BENCH_GEN_DIR)/%.c
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# $(1) = workload: its sources, the common ones, the generated handlers
# when the conf says so, then the study code and util.
define bench_workload
$(BUILD)/bench/$(1): $(patsubst %.c,$(BUILD)/%.o,$(BENCH_COMMON) $(call bench_conf,$(1),sources)) \
		$(if $(filter yes,$(call bench_conf,$(1),handlers)),$(BENCH_GEN_OBJS)) \
		$(BENCH_STUDY_OBJS)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $(BENCH_LIBS)
endef
$(foreach w,$(BENCH_WORKLOADS),$(eval $(call bench_workload,$(w))))

.PHONY: bench-workloads
bench-workloads: $(BENCH_BINS)

ALL_TARGETS += $(BENCH_BINS)

# tests/unit/test_bench.c tests the building blocks (no model, no handlers);
# an explicit rule beats the generic pattern that links only lace's archives.
BENCH_UNIT_OBJS := $(patsubst %.c,$(BUILD)/%.o,bench/rng.c bench/zipf.c bench/counts.c bench/opts.c)
$(BUILD)/tests/test_bench: tests/unit/test_bench.c $(BENCH_UNIT_OBJS) $(MOD_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BENCH_UNIT_OBJS) $(MOD_LINK) $(EXTRA_LIBS) $(DEP_LIBS) -lcmocka

# ---- ppc64le guest workloads ---------------------------------------------
# The same three workloads, static, for a ppc64le Linux guest booted under
# qemu-system-ppc64 (the kernel study: faultbench --real there takes one
# real hash fault per page): build/ppc64le/bench/{hackbench,faultbench,
# randaccess}, from the same workloads.conf lists and the same generated
# handler sources (host-independent C, build/gen/bench), compiled with
# Debian's cross compiler.  Objects (study code and util/ included) go to
# their own tree build/ppc64le/obj.  Plain workloads.conf flags plus
# warnings; not -Werror: the host build already enforces that on these
# sources, and a warning only the cross compiler emits must not break
# plain `make`.  Only when the cross compiler and its libc are installed;
# otherwise make says so and everything else still builds.
# (the same variable as measure/qemu/module.mk's ppc64le guest runner)
PPC64LE_CC  ?= powerpc64le-linux-gnu-gcc
XPPC_DIR    := $(BUILD)/ppc64le
XPPC_BINS   := $(addprefix $(XPPC_DIR)/bench/,$(BENCH_WORKLOADS))
# the cross libc's static archive: -print-file-name prints the bare name
# when the compiler does not find it (or when there is no compiler)
XPPC_LIBC   := $(shell $(PPC64LE_CC) -print-file-name=libc.a 2>/dev/null)
# <sys/sdt.h> (systemtap-sdt-dev) is installed for the host's multiarch
# triplet only; the header itself is target-neutral (powerpc included), so
# the cross build sees the host's copy through a folder of its own.
XPPC_SDT    := $(firstword $(wildcard /usr/include/sys/sdt.h /usr/include/*/sys/sdt.h))
XPPC_CFLAGS := -std=gnu11 $(filter-out -Werror,$(WARN)) -O2 -g -I. -I$(XPPC_DIR)/include \
               -D_GNU_SOURCE -MMD -MP

ifneq ($(filter /%,$(XPPC_LIBC)),)
$(XPPC_DIR)/include/sys/sdt.h: $(XPPC_SDT)
	@mkdir -p $(dir $@)
	$(Q)ln -sf $(XPPC_SDT) $@ && ln -sf $(dir $(XPPC_SDT))sdt-config.h $(dir $@)sdt-config.h

$(XPPC_DIR)/obj/%.o: %.c | $(XPPC_DIR)/include/sys/sdt.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [ppc64le] $<")
	$(Q)$(PPC64LE_CC) $(XPPC_CFLAGS) -c -o $@ $<

$(XPPC_DIR)/obj/gen/bench/%.o: $(BENCH_GEN_DIR)/%.c | $(XPPC_DIR)/include/sys/sdt.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [ppc64le] $<")
	$(Q)$(PPC64LE_CC) $(XPPC_CFLAGS) -c -o $@ $<

define bench_workload_ppc64le
$(XPPC_DIR)/bench/$(1): $(patsubst %.c,$(XPPC_DIR)/obj/%.o,$(BENCH_COMMON) $(call bench_conf,$(1),sources)) \
		$(if $(filter yes,$(call bench_conf,$(1),handlers)),\
			$(patsubst $(BENCH_GEN_DIR)/%.o,$(XPPC_DIR)/obj/gen/bench/%.o,$(BENCH_GEN_OBJS))) \
		$(patsubst $(BUILD)/%,$(XPPC_DIR)/obj/%,$(BENCH_STUDY_OBJS))
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  LD [ppc64le] $$@")
	$$(Q)$$(PPC64LE_CC) -static -o $$@ $$(filter %.o,$$^) $(BENCH_LIBS)
endef
$(foreach w,$(BENCH_WORKLOADS),$(eval $(call bench_workload_ppc64le,$(w))))

.PHONY: bench-ppc64le
bench-ppc64le: $(XPPC_BINS)
ALL_TARGETS += $(XPPC_BINS)
else ifneq ($(filter-out $(SETUP_FIRST_GOALS),$(or $(MAKECMDGOALS),all)),)
$(warning lace: not building the ppc64le guest workloads $(XPPC_DIR)/bench/*: \
  $(PPC64LE_CC) or its libc is missing (Debian packages gcc-powerpc64le-linux-gnu \
  libc6-dev-ppc64el-cross: 'make setup-test' as root installs them))
endif
