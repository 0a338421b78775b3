/* The record stream (measure/model/record.h) and the recording file
 * (measure/replay/record_file.h): what the packer writes the reader gives back,
 * a buffer too small is refused without writing, every truncation of a
 * stream is either a shorter valid stream or an error, and a file cut
 * anywhere, or not a recording at all, is an error with a message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/model/record.h"
#include "measure/replay/record_file.h"
#include "util/error.h"

static uint8_t buf[1u << 16];
static uint64_t raddr[REC_MAX_INSNS];
static uint32_t rlen[REC_MAX_INSNS];
static uint64_t rphys[REC_MAX_INSNS];

/* a small stream: image, map, two blocks, runs, a window with a
 * take-back, the end */
static uint32_t stream_make(struct rec_packer *p)
{
	uint64_t a1[3] = { 0x401000, 0x401004, 0x401010 }, a2[2] = { 0x7fff0000, 0x3000 };
	uint32_t l1[3] = { 4, 5, 2 }, l2[2] = { 15, 1 };
	uint64_t ph2[2] = { 0x1000000, 0x5000 };

	rec_packer_init(p, buf, sizeof(buf));
	assert_int_equal(rec_put_image(p, 1234, "/bin/true"), 0);
	assert_int_equal(rec_put_map(p, 0x100000, 0x401000, 0x2000, "/bin/true"), 0);
	assert_int_equal(rec_put_def(p, 0, a1, l1, NULL, 3), 0);
	assert_int_equal(rec_put_def(p, REC_DEF_KERNEL, a2, l2, ph2, 2), 0);
	assert_int_equal(rec_put_exec(p, 0), 0);
	assert_int_equal(rec_put_mark(p, REC_WIN_OPEN), 0);
	assert_int_equal(rec_put_exec(p, 1), 0);
	assert_int_equal(rec_put_exec_phys(p, 0, 0x1234000), 0);
	assert_int_equal(rec_put_take_back(p, REC_SIDE_USER, 6), 0);
	assert_int_equal(rec_put_take_back(p, REC_SIDE_KERNEL, 300), 0);
	assert_int_equal(rec_put_take_back(p, 2, 1), -1);   /* no such side */
	assert_int_equal(rec_put_mark(p, REC_CTXSW), 0);
	assert_int_equal(rec_put_mark(p, REC_WIN_CLOSE), 0);
	assert_int_equal(rec_put_fork(p, 1, 2, 3), 0);
	assert_int_equal(rec_put_end(p, REC_END_EXIT), 0);
	return p->len;
}

static void test_round_trip(void **state)
{
	struct rec_packer p;
	struct rec_reader r;
	struct rec_event ev;
	uint32_t n = stream_make(&p);

	assert_int_equal(p.ndefs, 2);
	rec_reader_init(&r, buf, n, raddr, rlen, rphys);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_IMAGE);
	assert_int_equal(ev.a, 1234);
	assert_memory_equal(ev.str, "/bin/true", 9);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_MAP);
	assert_int_equal(ev.a, 0x100000);
	assert_int_equal(ev.b, 0x401000);
	assert_int_equal(ev.c, 0x2000);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_DEF);
	assert_int_equal(ev.id, 0);
	assert_int_equal(ev.ninsn, 3);
	assert_int_equal(raddr[2], 0x401010);
	assert_int_equal(rlen[1], 5);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.id, 1);
	assert_int_equal(ev.flags, REC_DEF_KERNEL | REC_DEF_PHYS);
	assert_int_equal(rphys[0], 0x1000000);
	assert_int_equal(rphys[1], 0x5000);
	assert_int_equal(raddr[0], 0x7fff0000);
	assert_int_equal(raddr[1], 0x3000);   /* backwards: zigzag */
	assert_int_equal(rlen[0], 15);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_EXEC);
	assert_int_equal(ev.id, 0);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_WIN_OPEN);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.id, 1);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_EXEC_PHYS);
	assert_int_equal(ev.id, 0);
	assert_int_equal(ev.phys, 0x1234000);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_TAKE_BACK);
	assert_int_equal(ev.flags, REC_SIDE_USER);
	assert_int_equal(ev.a, 6);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_TAKE_BACK);
	assert_int_equal(ev.flags, REC_SIDE_KERNEL);
	assert_int_equal(ev.a, 300);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_CTXSW);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_WIN_CLOSE);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_FORK);
	assert_int_equal(ev.c, 3);
	assert_int_equal(rec_next(&r, &ev), 1);
	assert_int_equal(ev.tag, REC_END);
	assert_int_equal(rec_next(&r, &ev), 0);
}

static void test_full_buffer(void **state)
{
	uint8_t small[16];
	struct rec_packer p;
	uint64_t a[2] = { 1, 2 };
	uint32_t l[2] = { 1, 1 };

	rec_packer_init(&p, small, sizeof(small));
	assert_int_equal(rec_put_def(&p, 0, a, l, NULL, 2), -1);
	assert_int_equal(p.len, 0);
	assert_int_equal(p.ndefs, 0);
	assert_int_equal(rec_put_image(&p, 1, "a long path that does not fit"), -1);
	assert_int_equal(rec_put_exec(&p, 5), 0);
	assert_int_equal(rec_offset(&p), p.len);
	rec_packer_taken(&p, p.len);
	assert_int_equal(p.len, 0);
	assert_int_equal(rec_offset(&p), p.flushed);
}

static void test_truncated_streams(void **state)
{
	struct rec_packer p;
	uint32_t n = stream_make(&p);

	/* every prefix reads as records then end or error, never past it */
	for (uint32_t cut = 0; cut <= n; cut++) {
		struct rec_reader r;
		struct rec_event ev;
		int rc;
		rec_reader_init(&r, buf, cut, raddr, rlen, rphys);
		while ((rc = rec_next(&r, &ev)) > 0)
			assert_true(rec_reader_offset(&r) <= cut);
	}
	/* an unknown tag is an error */
	uint8_t junk[2] = { 0x7f, 0 };
	struct rec_reader r;
	struct rec_event ev;
	rec_reader_init(&r, junk, 2, raddr, rlen, rphys);
	assert_int_equal(rec_next(&r, &ev), -1);
	/* so is a take-back of a side that is not user or kernel */
	uint8_t side[3] = { REC_TAKE_BACK, 2, 1 };
	rec_reader_init(&r, side, 3, raddr, rlen, rphys);
	assert_int_equal(rec_next(&r, &ev), -1);
}

static void test_file_round_trip(void **state)
{
	struct rec_packer p;
	uint32_t n = stream_make(&p);
	struct lace_record w, r;
	struct lace_record_stream s[2] = { { 10, 0, buf, n }, { 11, 1, buf, 5 } };
	char path[] = "/tmp/lace-test-record.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	uint8_t *file;
	long size;

	assert_true(fd >= 0);
	close(fd);
	record_init(&w);
	snprintf(w.host, sizeof(w.host), "sim");
	w.cfg = (struct sim_config){ 32768, 8, 64, 64, 8, 1536, 12, 4096, 16,
				     2 << 20, 8, 8, 1, 0xffffffff81000000ull, 0xffffffff81400000ull };
	w.streams = s;
	w.nstreams = 2;
	record_build_add(&w, "user", "abcd", "/bin/some path");
	assert_int_equal(record_file_write(path, &w), 0);
	w.streams = NULL;
	record_free(&w);

	record_init(&r);
	assert_int_equal(record_file_read(path, &r), 0);
	assert_int_equal(r.nstreams, 2);
	assert_int_equal(r.streams[1].pid, 11);
	assert_int_equal(r.streams[1].image, 1);
	assert_int_equal(r.streams[0].len, n);
	assert_memory_equal(r.streams[0].data, buf, n);
	assert_int_equal(r.nbuilds, 1);
	assert_string_equal(r.builds[0].path, "/bin/some path");
	assert_string_equal(r.builds[0].build_id, "abcd");
	assert_int_equal(r.cfg.stlb_entries, 1536);
	/* the large pages and their range come back */
	assert_int_equal(r.cfg.large_page, 2 << 20);
	assert_int_equal(r.cfg.litlb_entries, 8);
	assert_int_equal(r.cfg.stlb_large, 1);
	assert_true(r.cfg.large_lo == 0xffffffff81000000ull && r.cfg.large_hi == 0xffffffff81400000ull);
	record_free(&r);

	/* every cut of the file is an error, with a message */
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	file = malloc((size_t)size);
	assert_int_equal(fread(file, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	for (long cut = 0; cut < size; cut++) {
		record_init(&r);
		assert_true(record_file_parse("x", file, (size_t)cut, &r) < 0);
		assert_true(strlen(lace_error_msg()) > 0);
		record_free(&r);
	}
	record_init(&r);
	assert_true(record_file_parse("x", (const uint8_t *)"ELF\n\n", 5, &r) < 0);
	assert_string_equal(lace_error_msg(), "x: not a lace recording");
	record_free(&r);
	/* this lace writes its version and refuses a newer one */
	assert_int_equal(memcmp(file, "lace-record 2\n", 14), 0);
	record_init(&r);
	assert_true(record_file_parse("x", (const uint8_t *)"lace-record 3\n\n", 16, &r) < 0);
	assert_string_equal(lace_error_msg(), "x: recording format 3 is newer than this lace's 2");
	record_free(&r);
	free(file);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_full_buffer),
		cmocka_unit_test(test_truncated_streams),
		cmocka_unit_test(test_file_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
