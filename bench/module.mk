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
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BENCH_UNIT_OBJS) $(MOD_LIBS) $(EXTRA_LIBS) $(DEP_LIBS) -lcmocka
