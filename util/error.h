/* Error reporting for library code.
 *
 * Library functions return a negative errno-style code (or NULL) and record a
 * one-line human message with lace_error_set(); only cli/ prints it, as
 * "lace: <subject>: <message>", and chooses the exit status. */
#ifndef LACE_ERROR_H
#define LACE_ERROR_H

/* Exit codes shared by every command. */
enum {
	LACE_EXIT_OK = 0,
	LACE_EXIT_FAIL = 1,  /* check failed / regression found */
	LACE_EXIT_USAGE = 2, /* usage or input error */
};

/* Record the message for the last error (printf format); returns -err
 * (err given as a positive errno or LACE_E* code) so callers can write
 * `return lace_error_set(EINVAL, "bad thing %d", x);`. */
int lace_error_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The recorded message, or "" when none. */
const char *lace_error_msg(void);
void lace_error_clear(void);

/* Print "lace: <subject>: <msg>\n" (subject may be NULL) to stderr. */
void lace_err(const char *subject, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lace_warn(const char *subject, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
