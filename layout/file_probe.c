/* layout_file_probe(): what kind of file a path holds (util/file_probe.h),
 * read with libelf: the ELF header, and whether a PT_INTERP program header
 * exists; for a file that is not ELF, whether it carries the x86 boot
 * protocol's setup header (Documentation/x86/boot.rst: "HdrS" at 0x202),
 * which is how a bzImage says what it is. */
#include "layout/image.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/file_probe.h"

static void elf_facts(Elf *e, struct file_facts *f)
{
	GElf_Ehdr eh;
	size_t n = 0;

	if (!gelf_getehdr(e, &eh))
		return;
	f->kind = gelf_getclass(e) == ELFCLASS64 ? FILE_KIND_ELF64 : FILE_KIND_ELF32;
	f->machine = eh.e_machine;
	f->type = eh.e_type;
	f->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (elf_getphdrnum(e, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			f->interp = true;
	}
}

int layout_file_probe(const char *path, struct file_facts *f)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char magic[4];

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);

	if (e && elf_kind(e) == ELF_K_ELF)
		elf_facts(e, f);
	else if (pread(fd, magic, sizeof(magic), 0x202) == (ssize_t)sizeof(magic) &&
		 !memcmp(magic, "HdrS", 4))
		f->kind = FILE_KIND_BZIMAGE;
	if (e)
		elf_end(e);
	close(fd);
	return 0;
}
