# tests/fuzz/: libFuzzer harnesses over image loading, layout and diff,
# and over recordings (lace replay).
#
#   make fuzz FUZZ_TIME=60      run each harness for FUZZ_TIME seconds
#                               (clang, ASan+UBSan, objects in build-fuzz/)
#   make check                  replays tests/fuzz/corpus/ through the same
#                               harness code built with gcc (t_fuzz_replay)
#
# Every tests/fuzz/fuzz_*.c but the support files is a harness, always built (its gcc replay
# twin by `make all-targets`/`make check`): a harness that no longer compiles
# or links against layout/ (a renamed image_load, say) fails the build rather
# than turning t_fuzz_replay into a skip.

FUZZ_CC      ?= clang
FUZZ_BUILD   := build-fuzz
FUZZ_TIME    ?= 60
FUZZ_MAX_LEN ?= 8192
FUZZ_FLAGS   ?=
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter -I. -I$(BUILD)/gen \
                $(DEP_CFLAGS) -DLACE_VERSION='"$(VERSION)"' -D_GNU_SOURCE -MMD -MP \
                $(FUZZ_SAN) -fsanitize=fuzzer-no-link

# harness code shared by every harness; every other fuzz_*.c is a harness
FUZZ_SUPPORT   := tests/fuzz/fuzz_input.c tests/fuzz/fuzz_check.c
FUZZ_HARNESSES := $(patsubst tests/fuzz/%.c,%,$(filter-out $(FUZZ_SUPPORT),$(wildcard tests/fuzz/fuzz_*.c)))

# --- libFuzzer binaries (clang) -------------------------------------------
# fuzz_record: the recording reader and the replay engine, with the models
FUZZ_RECORD_SRCS := measure/replay/record_file.c measure/replay/replay.c measure/qemu/tcg_core.c \
                    $(wildcard measure/model/*.c)
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(wildcard layout/*.c util/*.c) \
                 $(FUZZ_RECORD_SRCS) $(FUZZ_SUPPORT))
FUZZ_BINS     := $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/%)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/liblace-fuzz.a: $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_BINS): $(FUZZ_BUILD)/%: $(FUZZ_BUILD)/tests/fuzz/%.o $(FUZZ_BUILD)/liblace-fuzz.a
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(DEP_LIBS)

$(FUZZ_BUILD)/seeds/.done: tests/fuzz/seeds/seed.c tests/fuzz/seeds/make-seeds.sh
	$(Q)tests/fuzz/seeds/make-seeds.sh $(FUZZ_BUILD)/seeds && touch $@

fuzz-build: $(FUZZ_BINS) $(FUZZ_BUILD)/seeds/.done

# Each harness keeps its growing corpus in tests/fuzz/findings/<h>/queue
# (ignored by git) and writes crashers next to it; crashers worth keeping
# are minimized into tests/fuzz/corpus/<h>/.  nice: the machine is shared.
fuzz: fuzz-build
	$(Q)for h in $(FUZZ_HARNESSES); do \
	  seeds=$(FUZZ_BUILD)/seeds; len=$(FUZZ_MAX_LEN); \
	  [ $$h = fuzz_diff ] && { seeds=$(FUZZ_BUILD)/seeds/pairs; len=$$((2 * len)); }; \
	  mkdir -p tests/fuzz/findings/$$h/queue tests/fuzz/corpus/$$h; \
	  echo "fuzz: $$h for $(FUZZ_TIME)s"; \
	  nice -n 10 $(FUZZ_BUILD)/$$h -max_total_time=$(FUZZ_TIME) -max_len=$$len \
	    -timeout=25 -rss_limit_mb=0 -malloc_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=tests/fuzz/findings/$$h/ $(FUZZ_FLAGS) \
	    tests/fuzz/findings/$$h/queue $$seeds tests/fuzz/corpus/$$h || exit 1; \
	done

# --- replay twins (gcc, the normal or SANITIZE=1 build) --------------------
FUZZ_REPLAYS := $(FUZZ_HARNESSES:%=$(BUILD)/tests/fuzz/replay_%)
FUZZ_REPLAY_OBJS := $(patsubst %.c,$(BUILD)/%.o,tests/fuzz/replay_main.c $(FUZZ_SUPPORT))

$(FUZZ_REPLAYS): $(BUILD)/tests/fuzz/replay_%: $(BUILD)/tests/fuzz/%.o $(FUZZ_REPLAY_OBJS) $(MOD_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(FUZZ_REPLAY_OBJS) $(MOD_LINK) $(EXTRA_LIBS) $(DEP_LIBS)

CHECK_DEPS += $(FUZZ_REPLAYS)

.PHONY: fuzz fuzz-build
-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
