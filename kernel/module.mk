# kernel/: what `lace build kernel` builds from (kernel.conf, configs/,
# patches/), read at run time by variants/kernel_config.c, so `make
# install` puts it next to the study sources.  Building kernels takes
# minutes, so it stays out of `make check`: `make check-kernel` builds the
# x86-64 variants into the cache (a relink each once the base is built)
# and runs the tests that need them.
INSTALL_HOOKS += install-kernel-files
.PHONY: install-kernel-files check-kernel validate-aa
install-kernel-files:
	install -d $(DESTDIR)$(PREFIX)/share/lace/src/kernel
	install -m 0644 kernel/kernel.conf $(DESTDIR)$(PREFIX)/share/lace/src/kernel/
	for d in configs layouts $(patsubst kernel/%,%,$(wildcard kernel/patches/*)); do \
	  install -d $(DESTDIR)$(PREFIX)/share/lace/src/kernel/$$d; \
	  for f in kernel/$$d/*; do \
	    [ -f "$$f" ] && install -m 0644 "$$f" $(DESTDIR)$(PREFIX)/share/lace/src/kernel/$$d/ || exit 1; \
	  done; \
	done

# the relinks the kernel study makes (pipeline/kstudy/kstudy.c: reading
# 4's positive control and three reordered builds), which t_study_kernel*
# read from $(BUILD)/kernels
KERNEL_TEST_LAYOUTS := conflict-16.edit reorder-1.order reorder-2.order reorder-3.order
KERNEL_TESTS ?= t_kernel_build t_vlayout_kernel t_study_kernel t_check_kernel t_study_kernel_jobs \
	t_study_kernel_parallel t_study_kernel_slurm t_ab_same_execution
check-kernel:
	$(Q)$(SETUP_DEPS) kernel
	$(Q)$(MAKE) --no-print-directory all-targets
	$(Q)$(LACE) build kernel x86_64 -o $(BUILD)/kernels
	$(Q)$(LACE) build kernel x86_64 --shuffle 19 -o $(BUILD)/kernels
	$(Q)$(LACE) build kernel x86_64 $(foreach l,$(KERNEL_TEST_LAYOUTS),--layout kernel/layouts/$(l)) \
	  -o $(BUILD)/kernels
	$(Q)$(LACE) build kernel ppc64le -o $(BUILD)/kernels
	$(Q)$(LACE) build kernel ppc64le-4k --variant baseline --variant old-ptes -o $(BUILD)/kernels
	$(Q)LACE=$(abspath $(LACE)) BUILD=$(abspath $(BUILD)) LACE_KERNELS=$(abspath $(BUILD))/kernels \
	  TESTS="$(KERNEL_TESTS)" tests/integration/run.sh

# The A vs A validation of the placement verdict (issue 34): AA_T trials
# of baseline against itself (AA_E recorded executions x AA_K draw pairs;
# each trial fresh draws of the same executions), the rate of false
# slower/faster verdicts with its Clopper-Pearson interval, into
# $(BUILD)/validate-aa.txt.  About 40 min on 2 cores at the defaults;
# doc/study.md gives the last result.  8 x 8 was the kernel study's
# design until it took 64 draws on its first profile; 8 x 64 (AA_K=64)
# is about 5 h of replay: the t test's null is the harder to keep at 8
# draws, whose per-execution means average fewer cells.
AA_E ?= 8
AA_K ?= 8
AA_T ?= 200
validate-aa:
	$(Q)$(SETUP_DEPS) kernel
	$(Q)$(MAKE) --no-print-directory all-targets
	$(Q)$(LACE) build kernel x86_64 --variant baseline -o $(BUILD)/kernels
	$(Q)$(LACE) ab --same-execution --backend qemu --kernel-a $(BUILD)/kernels/x86_64-baseline/bzImage \
	  --kernel-b $(BUILD)/kernels/x86_64-baseline/bzImage --executions $(AA_E) --draws $(AA_K) \
	  --aa-trials $(AA_T) -- $(BUILD)/bench/hackbench -g 4 -f 5 -l 20 | tee $(BUILD)/validate-aa.txt
