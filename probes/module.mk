# probes/ + hashmmu/: the study code (static keys, tracepoints, the hash MMU
# model and the entry code).  Not linked into lace: `lace build` compiles
# these sources itself, once per placement variant.  Here they are built
# into build/libstudy.a for the unit tests, with lace's own flags.
#
# One rule for both folders, so the archive's contents do not depend on the
# order the module fragments are included in.  The driver program lives in
# hashmmu/driver/ so that "every .c directly in probes/ and hashmmu/" is the
# library (the contract with bench/workloads.conf).
STUDY_SRCS := $(wildcard probes/*.c hashmmu/*.c)
STUDY_OBJS := $(STUDY_SRCS:%.c=$(BUILD)/%.o)
STUDY_LIB  := $(BUILD)/libstudy.a
STUDY_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,\
	$(wildcard tests/unit/test_static_key*.c tests/unit/test_tracepoint*.c tests/unit/test_hashmmu*.c))

$(STUDY_LIB): $(STUDY_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The study's unit tests link libstudy.a first (the generic rule links only
# lace's module archives); a static pattern rule beats the generic pattern.
$(STUDY_TESTS): $(BUILD)/tests/%: tests/unit/%.c $(STUDY_LIB) $(MOD_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(STUDY_LIB) $(MOD_LINK) $(EXTRA_LIBS) $(DEP_LIBS) -lcmocka
