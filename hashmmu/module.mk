# hashmmu/ (with probes/, built into build/libstudy.a by probes/module.mk).
# Here: what `lace build` needs from the top-level build.
#
# cmd_build.c finds the sources in the tree lace was built from (compiled in
# below) or, once installed, in $(PREFIX)/share/lace/src, which `make
# install` fills with the folders lace build compiles.
$(BUILD)/cli/cmd_build.o: ALL_CFLAGS += -DLACE_SRCDIR_DEFAULT='"$(CURDIR)"' \
	-DLACE_PREFIX_DEFAULT='"$(PREFIX)"'

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
