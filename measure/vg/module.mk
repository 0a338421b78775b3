# measure/vg: the Valgrind host.  backend_vg.c (the backend that launches
# the tool, `--backend sim`) goes into libmeasure_vg.a like any module; this
# fragment also builds the Valgrind tool lace-vg (measure/vg/tool/, with the
# models of measure/model/ compiled in) and its VALGRIND_LIB folder build/vg/
# from Debian's valgrind package (its static archives), which `make setup`
# installs.  Without them make says so, lace still builds, and
# `--backend sim` names the remedy.

VG_INC     := /usr/include/valgrind
VG_LIBDIR  := /usr/lib/x86_64-linux-gnu/valgrind
VG_LIBEXEC := /usr/libexec/valgrind
VG_ARCHIVES := $(VG_LIBDIR)/libcoregrind-amd64-linux.a $(VG_LIBDIR)/libvex-amd64-linux.a \
               $(VG_LIBDIR)/libgcc-sup-amd64-linux.a

ifeq ($(words $(wildcard $(VG_ARCHIVES) $(VG_INC)/pub_tool_basics.h $(VG_LIBEXEC))),5)
VG_DIR    := $(BUILD)/vg
VG_TOOL   := $(VG_DIR)/lace-vg-amd64-linux
VG_STAMP  := $(VG_DIR)/.links
# the tool's own sources, then the models shared with lace and the tests
VG_SRCS   := $(wildcard measure/vg/tool/*.c) measure/model/cache.c measure/model/fetch.c \
             measure/model/model.c measure/model/record.c
VG_OBJS   := $(patsubst %.c,$(VG_DIR)/obj/%.o,$(notdir $(VG_SRCS)))
VG_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
             -Wno-sign-compare -I. -I$(VG_INC) \
             -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
             -fno-builtin -fno-stack-protector -fno-strict-aliasing -fno-pie \
             -fno-omit-frame-pointer -MMD -MP

# two pattern rules (tool sources, shared models) rather than a vpath, which
# would leak into every other module's rules
$(VG_DIR)/obj/%.o: measure/vg/tool/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [vg] $<")
	$(Q)$(CC) $(VG_CFLAGS) -c -o $@ $<

$(VG_DIR)/obj/%.o: measure/model/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [vg] $<")
	$(Q)$(CC) $(VG_CFLAGS) -c -o $@ $<

# link recipe of an out-of-tree tool (valgrind's Makefile.tool.am)
$(VG_TOOL): $(VG_OBJS)
	@$(if $(Q),echo "  LD [vg] $@")
	$(Q)$(CC) -o $@ $(VG_OBJS) -static -nodefaultlibs -nostartfiles -u _start -no-pie \
		-Wl,--build-id=none -Wl,-Ttext-segment=0x58000000 \
		$(VG_LIBDIR)/libcoregrind-amd64-linux.a $(VG_LIBDIR)/libvex-amd64-linux.a \
		-lgcc $(VG_LIBDIR)/libgcc-sup-amd64-linux.a

# VALGRIND_LIB must hold the tool and everything the core loads (preloads,
# suppressions, gdb xml, the other tools): link them in.
$(VG_STAMP): $(VG_TOOL)
	$(Q)for f in $(VG_LIBEXEC)/*; do ln -sfn "$$f" $(VG_DIR)/; done
	$(Q)touch $@

# The virtual clock, preloaded into workloads that lace runs under the
# tool (LD_PRELOAD, by the backend).  Client code: no libc.  Not named
# vgpreload_lace-vg-amd64-linux.so, which the core would preload into every
# run, cachegrind-parity runs included.
VG_TIME_SO := $(VG_DIR)/vgpreload_lace-vg-time-amd64-linux.so
$(VG_TIME_SO): measure/vg/tool/preload/vgpreload_time.c measure/vg/tool/lace_vg_time.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [vg] $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -I. -I$(VG_INC) \
		-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
		-fpic -shared -nostdlib -fno-builtin -fno-stack-protector \
		-Wl,-soname,$(notdir $@) -Wl,-z,noexecstack -o $@ $<

# The launcher (vg/launcher/lace-valgrind.c): starts the tool without
# VALGRIND_LIB, which the core would pass on to the client.  Plain flags,
# never the sanitizers': it only execs the tool.  lace-valgrind is Debian's
# wrapper script where there is one (it runs "$$0.bin"), so the client's
# environment is what `valgrind --tool=cachegrind` gives its client.
VG_LAUNCHER     := $(VG_DIR)/lace-valgrind.bin
VG_LAUNCH_LINK  := $(VG_DIR)/lace-valgrind
VG_WRAPPER      := $(firstword $(wildcard /usr/bin/valgrind))
$(VG_LAUNCHER): measure/vg/tool/launcher/lace-valgrind.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC [vg] $@")
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $<

$(VG_LAUNCH_LINK): $(VG_LAUNCHER)
	$(Q)if [ -n "$(VG_WRAPPER)" ] && head -c 2 "$(VG_WRAPPER)" | grep -q '^#!' && \
	    grep -q 'exec $$0.bin' "$(VG_WRAPPER)"; then \
	  ln -sfn "$(VG_WRAPPER)" $@; else ln -sfn $(notdir $(VG_LAUNCHER)) $@; fi

sim-tool: $(VG_TOOL) $(VG_STAMP) $(VG_TIME_SO) $(VG_LAUNCH_LINK)
ALL_TARGETS += $(VG_TOOL) $(VG_STAMP) $(VG_TIME_SO) $(VG_LAUNCHER) $(VG_LAUNCH_LINK)

sim-install: $(VG_TOOL) $(VG_TIME_SO)
	install -D -m 0755 $(VG_TOOL) $(DESTDIR)$(PREFIX)/lib/lace/vg/lace-vg-amd64-linux
	install -D -m 0755 $(VG_TIME_SO) $(DESTDIR)$(PREFIX)/lib/lace/vg/$(notdir $(VG_TIME_SO))
	install -D -m 0755 $(VG_LAUNCHER) $(DESTDIR)$(PREFIX)/lib/lace/vg/$(notdir $(VG_LAUNCHER))
	cp -P $(VG_LAUNCH_LINK) $(DESTDIR)$(PREFIX)/lib/lace/vg/
	for f in $(VG_LIBEXEC)/*; do ln -sfn "$$f" $(DESTDIR)$(PREFIX)/lib/lace/vg/; done
INSTALL_HOOKS += sim-install
else ifneq ($(filter-out $(SETUP_FIRST_GOALS),$(or $(MAKECMDGOALS),all)),)
# (goals that run setup first say it from their sub-make, after setup)
$(warning lace: not building the simulator tool $(BUILD)/vg/lace-vg-amd64-linux: \
  missing $(filter-out $(wildcard $(VG_ARCHIVES) $(VG_INC)/pub_tool_basics.h $(VG_LIBEXEC)),\
  $(VG_ARCHIVES) $(VG_INC)/pub_tool_basics.h $(VG_LIBEXEC)) (Debian package valgrind: \
  'make setup' as root installs it); lace stat --backend sim will not work)
endif
.PHONY: sim-tool sim-install
