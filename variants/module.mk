# variants/: the engine of `lace build` (config.c: the INI model; plan.c:
# what to build and each variant's flags; shuffle.c: randomized layouts;
# build.c: the driver; manifest.c).  Compiled by the generic module rule.
#
# config.c finds the sources in the tree lace was built from (compiled in
# below) or, once installed, in $(PREFIX)/share/lace/src, which `make
# install` fills with the folders lace build compiles (hashmmu/module.mk).
$(BUILD)/variants/config.o: ALL_CFLAGS += -DLACE_SRCDIR_DEFAULT='"$(CURDIR)"' \
	-DLACE_PREFIX_DEFAULT='"$(PREFIX)"'
