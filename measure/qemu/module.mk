# measure/qemu: the full-system backend's pieces.  The pure parts (*.c
# here: window markers, the user/kernel split, System.map) go into
# libmeasure_qemu.a like any module; this fragment also builds the TCG
# plugin build/qemu/liblace-tcg.so (those parts plus measure/model's models,
# compiled position-independent: the same sources as the Valgrind tool's,
# not a copy) and the guest's window runner build/qemu/lace-guest-run
# (static: the guest has no libc), also for ppc64le guests when the cross
# compiler is installed.  Only when QEMU is installed: otherwise
# make says so and lace still builds.

QEMU_SYSTEM ?= /usr/bin/qemu-system-x86_64
QEMU_DIR    := $(BUILD)/qemu
QEMU_PLUGIN := $(QEMU_DIR)/liblace-tcg.so
QEMU_RUNNER := $(QEMU_DIR)/lace-guest-run

ifneq ($(wildcard $(QEMU_SYSTEM)),)
QEMU_PLUGIN_SRCS := measure/qemu/plugin/lace_tcg_plugin.c measure/qemu/plugin/tcg_record.c \
                    measure/qemu/plugin/tcg_setup.c measure/qemu/plugin/tcg_classify.c \
                    measure/qemu/tcg_core.c measure/qemu/tcg_args.c util/parse_num.c \
                    measure/qemu/symmap.c util/error.c \
                    measure/model/cache.c measure/model/fetch.c measure/model/model.c \
                    measure/model/record.c
QEMU_PLUGIN_OBJS := $(patsubst %.c,$(QEMU_DIR)/obj/%.o,$(QEMU_PLUGIN_SRCS))

$(QEMU_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [tcg] $<")
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -g -I. -D_GNU_SOURCE -fPIC -fvisibility=hidden \
		-MMD -MP -c -o $@ $<

$(QEMU_PLUGIN): $(QEMU_PLUGIN_OBJS)
	@$(if $(Q),echo "  LD [tcg] $@")
	$(Q)$(CC) -shared -o $@ $(QEMU_PLUGIN_OBJS)

$(QEMU_RUNNER): measure/qemu/guest/lace_guest_run.c measure/qemu/tcg_core.h util/elf_note.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [guest] $@")
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -I. -static -o $@ $<

# The ppc64le guest's runner, cross-built (static) when Debian's cross
# compiler is there (setup's kernel group installs it).
PPC64LE_CC     ?= powerpc64le-linux-gnu-gcc
QEMU_RUNNER_PPC := $(QEMU_DIR)/ppc64le/lace-guest-run
ifneq ($(shell command -v $(PPC64LE_CC) 2>/dev/null),)
$(QEMU_RUNNER_PPC): measure/qemu/guest/lace_guest_run.c measure/qemu/tcg_core.h util/elf_note.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [guest ppc64le] $@")
	$(Q)$(PPC64LE_CC) -std=gnu11 $(WARN) -O2 -I. -static -o $@ $<
QEMU_RUNNERS := $(QEMU_RUNNER) $(QEMU_RUNNER_PPC)
else
QEMU_RUNNERS := $(QEMU_RUNNER)
endif

qemu-plugin: $(QEMU_PLUGIN) $(QEMU_RUNNERS)
ALL_TARGETS += $(QEMU_PLUGIN) $(QEMU_RUNNERS)
else ifneq ($(filter-out $(SETUP_FIRST_GOALS),$(or $(MAKECMDGOALS),all)),)
$(warning lace: not building the TCG plugin $(QEMU_PLUGIN): $(QEMU_SYSTEM) is missing \
  (Debian package qemu-system-x86: 'make setup' as root installs it); \
  lace stat --backend qemu will not work)
endif
.PHONY: qemu-plugin
