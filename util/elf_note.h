/* elf_note: the GNU build-id in a block of ELF notes (a SHT_NOTE
 * section's data, /sys/kernel/notes), the one parser of it: the running
 * kernel's identity, a built kernel's manifest and the guest runner all
 * read it here.  The notes are in the byte order of the machine reading
 * them (libelf's elf_getdata() translates a file's; the kernel's own are
 * native).
 *
 * Header-only, needing only memcpy/memcmp: the guest runner (a static
 * program for the guest) and lace include it alike. */
#ifndef LACE_ELF_NOTE_H
#define LACE_ELF_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ELF_NOTE_GNU_BUILD_ID 3   /* NT_GNU_BUILD_ID */

/* The build-id of notes (len bytes) as lowercase hex into hex (hexlen
 * bytes, room for the NUL included); false when there is none, the notes
 * are malformed, or it does not fit. */
static inline bool elf_note_build_id(const void *notes, size_t len, char *hex, size_t hexlen)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *n = notes;
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, n + off, 4);
		memcpy(&descsz, n + off + 4, 4);
		memcpy(&type, n + off + 8, 4);
		if (namesz > len || descsz > len)
			return false;
		size_t name = off + 12, desc = name + ((namesz + 3) & ~(size_t)3);
		if (desc > len || desc + descsz > len)
			return false;
		if (type == ELF_NOTE_GNU_BUILD_ID && namesz == 4 && !memcmp(n + name, "GNU", 4) &&
		    descsz > 0 && 2 * (size_t)descsz < hexlen) {
			for (uint32_t i = 0; i < descsz; i++) {
				hex[2 * i] = digits[n[desc + i] >> 4];
				hex[2 * i + 1] = digits[n[desc + i] & 15];
			}
			hex[2 * descsz] = '\0';
			return true;
		}
		off = desc + ((descsz + 3) & ~(size_t)3);
	}
	return false;
}

#endif
