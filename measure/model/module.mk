# measure/model: the freestanding front-end models (cache, fetch blocks,
# TLBs), compiled into libmeasure_model.a like any module and, from the same
# sources, into both hosts: the Valgrind tool (measure/vg/module.mk) and the
# TCG plugin (measure/qemu/module.mk).  They call no libc I/O
# (scripts/check-layering.sh).  The CPU profiles (profiles/*.conf) are data
# files that measure/cpu_profile.c reads.

model-profiles-install:
	for p in measure/model/profiles/*.conf; do \
		install -D -m 0644 "$$p" $(DESTDIR)$(PREFIX)/share/lace/profiles/$$(basename $$p); done
INSTALL_HOOKS += model-profiles-install
.PHONY: model-profiles-install
