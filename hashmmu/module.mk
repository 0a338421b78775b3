# hashmmu/ (with probes/, built into build/libstudy.a by probes/module.mk).
# Here: what `lace build` needs from the top-level build.
#
# Once installed, lace build (variants/config.c) finds the sources in
# $(PREFIX)/share/lace/src, which `make install` fills with the folders it
# compiles.

STUDY_SRC_DIRS := probes hashmmu hashmmu/driver bench linker_scripts util
INSTALL_HOOKS  += install-study-sources
.PHONY: install-study-sources
install-study-sources:
	for d in $(STUDY_SRC_DIRS); do \
	  install -d $(DESTDIR)$(PREFIX)/share/lace/src/$$d; \
	  for f in $$d/*.c $$d/*.h $$d/*.conf $$d/*.ld; do \
	    [ -f "$$f" ] && install -m 0644 "$$f" $(DESTDIR)$(PREFIX)/share/lace/src/$$d/; \
	  done; \
	done; true
