#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_msg[1024];

int lace_error_set(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : (err ? err : -1);
}

const char *lace_error_msg(void)
{
	return last_msg;
}

void lace_error_clear(void)
{
	last_msg[0] = '\0';
}

static void vreport(const char *prefix, const char *subject, const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (subject)
		fprintf(stderr, "lace: %s%s: %s\n", prefix, subject, line);
	else
		fprintf(stderr, "lace: %s%s\n", prefix, line);
}

void lace_err(const char *subject, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", subject, fmt, ap);
	va_end(ap);
}

void lace_warn(const char *subject, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", subject, fmt, ap);
	va_end(ap);
}
