/* A recording file (doc/record-format.md): a text header saying what was
 * recorded, then the hosts' raw record streams (measure/model/record.h),
 * one per process image, compressed with zstd.  lace writes it from the
 * raw files a host left (record_streams_load) and reads it back for
 * `lace replay`.  A truncated or foreign file is an error with a message,
 * never a crash (tests/fuzz). */
#ifndef LACE_MEASURE_RECORD_FILE_H
#define LACE_MEASURE_RECORD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/model/model.h"

#define LACE_RECORD_VERSION 2   /* 2: REC_TAKE_BACK (doc/record-format.md) */

/* A build the recording ran: role "user" (the executable) or "kernel". */
struct lace_record_build {
	char role[16];
	char build_id[81];   /* lowercase hex, "" when unknown */
	char *path;
};

/* One raw stream: the records of one process image (or of the guest). */
struct lace_record_stream {
	uint64_t pid;
	uint64_t image;      /* 0, then 1 after an exec ... */
	const uint8_t *data; /* into the recording's payload */
	uint64_t len;
};

struct lace_record {
	int version;
	char arch[32];       /* "x86_64" ... */
	char host[16];       /* "sim" (lace-vg) or "qemu" */
	char profile[64];
	struct sim_config cfg;
	int window;          /* 1: the run counted its windows only (--window) */
	struct lace_record_build *builds;
	size_t nbuilds;
	struct lace_record_stream *streams;
	size_t nstreams;
	uint8_t *payload;    /* owns every stream's data */
	uint64_t payload_len;
};

void record_init(struct lace_record *r);
void record_free(struct lace_record *r);
/* Add a build to the header. */
void record_build_add(struct lace_record *r, const char *role, const char *build_id,
		      const char *path);
/* Take the raw streams <dir>/<prefix>.<pid>.<n> a host wrote into r (sorted
 * by pid, then n).  0, or -errno with the message set; none is -ENOENT. */
int record_streams_load(struct lace_record *r, const char *dir, const char *prefix);
/* Write r to path (header, then the compressed streams).  0 or -errno. */
int record_file_write(const char *path, const struct lace_record *r);
/* Read path into r (record_init'ed).  0, or -EINVAL ("<path>: ...") for a
 * file that is not a recording, is truncated or of a newer version; -errno
 * when it cannot be read. */
int record_file_read(const char *path, struct lace_record *r);
/* The same from memory (the fuzz harness); name is used in messages. */
int record_file_parse(const char *name, const uint8_t *buf, size_t len, struct lace_record *r);
/* Reads an ELF's GNU build-id as lowercase hex (0, or -errno): measure/
 * reads no ELF, so the CLI sets this to layout's reader; NULL: builds are
 * recorded without one. */
extern int (*record_build_id_reader)(const char *path, char *hex, size_t len);
/* After a recorded run: take the raw streams <dir>/<prefix>.* into a
 * recording with this header (host, profile, geometry), name the build of
 * the kernel (kernel non-NULL: a guest's, with its build-id when known) or
 * else of the first image's executable (role "user"), and write it to
 * path. */
int record_pack(const char *path, const char *dir, const char *prefix, const char *host,
		const char *profile, const struct sim_config *cfg, int window,
		const char *kernel, const char *kernel_build_id);
/* The stream of (pid, image), or NULL. */
const struct lace_record_stream *record_stream_find(const struct lace_record *r, uint64_t pid,
						    uint64_t image);

#endif
