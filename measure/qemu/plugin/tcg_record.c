/* The TCG plugin's recording; see tcg_record.h and doc/record-format.md. */
#include <stdio.h>
#include <stdlib.h>

#include "measure/qemu/plugin/tcg_record.h"

int tcg_rec_on;
struct rec_packer tcg_rec;
static FILE *rec_file;
static uint8_t rec_buf[4u << 20];

void tcg_rec_flush(void)
{
	if (rec_file && tcg_rec.len && fwrite(rec_buf, 1, tcg_rec.len, rec_file) != tcg_rec.len)
		abort();   /* a recording with a hole would replay wrong */
	rec_packer_taken(&tcg_rec, tcg_rec.len);
}

#define PUT(call)                                \
	do {                                     \
		if ((call) < 0) {                \
			tcg_rec_flush();         \
			if ((call) < 0)          \
				abort();         \
		}                                \
	} while (0)

int tcg_rec_open(const char *path)
{
	rec_file = fopen(path, "wb");
	if (!rec_file)
		return -1;
	rec_packer_init(&tcg_rec, rec_buf, sizeof(rec_buf));
	PUT(rec_put_image(&tcg_rec, 0, "guest"));
	tcg_rec_on = 1;
	return 0;
}

void tcg_rec_close(void)
{
	if (!tcg_rec_on)
		return;
	PUT(rec_put_end(&tcg_rec, REC_END_EXIT));
	tcg_rec_flush();
	fclose(rec_file);
	rec_file = NULL;
	tcg_rec_on = 0;
}

uint64_t tcg_rec_def(int kernel, const uint64_t *addr, const uint32_t *len,
		     const uint64_t *phys, uint32_t n)
{
	uint64_t id = tcg_rec.ndefs;

	PUT(rec_put_def(&tcg_rec, kernel ? REC_DEF_KERNEL : 0, addr, len, phys, n));
	return id;
}

void tcg_rec_mark(enum rec_tag tag)
{
	if (tcg_rec_on)
		PUT(rec_put_mark(&tcg_rec, tag));
}

void tcg_rec_take_back(uint32_t side, uint64_t n)
{
	if (tcg_rec_on)
		PUT(rec_put_take_back(&tcg_rec, side, n));
}
