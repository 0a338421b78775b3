/* The running kernel's identity; see kernel_id.h. */
#include "measure/kernel_id.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "util/elf_note.h"
#include "util/strbuf.h"

static void read_line(const char *path, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	buf[0] = '\0';
	if (!strbuf_read_file(&sb, path)) {
		char *nl = strchr(sb.buf, '\n');
		if (nl)
			*nl = '\0';
		snprintf(buf, len, "%s", sb.buf);
	}
	strbuf_release(&sb);
}

void kernel_id_read(struct lace_kernel_id *k)
{
	struct utsname u;
	struct strbuf notes = STRBUF_INIT;

	memset(k, 0, sizeof(*k));
	if (uname(&u) == 0)
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	read_line("/proc/sys/kernel/random/boot_id", k->boot_id, sizeof(k->boot_id));
	if (!strbuf_read_file(&notes, "/sys/kernel/notes") &&
	    !elf_note_build_id(notes.buf, notes.len, k->build_id, sizeof(k->build_id)))
		k->build_id[0] = '\0';
	strbuf_release(&notes);
}

json_t *kernel_id_json(const struct lace_kernel_id *k)
{
	return json_pack("{s:s,s:s,s:s}", "release", k->release, "build_id", k->build_id, "boot_id",
			 k->boot_id);
}

static void get(const json_t *j, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(j, key));

	snprintf(buf, len, "%s", s ? s : "");
}

void kernel_id_from_json(struct lace_kernel_id *k, const json_t *j)
{
	memset(k, 0, sizeof(*k));
	if (!json_is_object(j))
		return;
	get(j, "release", k->release, sizeof(k->release));
	get(j, "build_id", k->build_id, sizeof(k->build_id));
	get(j, "boot_id", k->boot_id, sizeof(k->boot_id));
}
