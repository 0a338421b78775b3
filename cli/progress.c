/* Progress lines of lace study; see progress.h. */
#include "cli/progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int tty = -1;
static bool live;

static void add_dur(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

void cli_progress(void *data, const struct study_progress *p)
{
	char head[200], el[32], left[32], count[80] = "";
	const char *cmd = data ? data : "study";

	if (tty < 0)
		tty = isatty(2);
	add_dur(el, sizeof(el), p->elapsed);
	if (p->total)
		snprintf(count, sizeof(count), " %zu/%zu%s", p->done, p->total, p->failed ? "," : "");
	if (p->failed)
		snprintf(count + strlen(count), sizeof(count) - strlen(count), " %zu failed", p->failed);
	if (p->left >= 0) {
		add_dur(left, sizeof(left), p->left);
		snprintf(head, sizeof(head), "[%s%s, %s, ~%s left]", p->phase, count, el, left);
	} else {
		snprintf(head, sizeof(head), "[%s%s, %s]", p->phase, count, el);
	}
	/* notes and failures stay on screen; steps replace each other on a
	 * terminal */
	if (!tty || p->step_failed || !strncmp(p->what, "note:", 5)) {
		fprintf(stderr, "%slace %s: %s %s\n", live ? "\r\033[K" : "", cmd, head, p->what);
		live = false;
		return;
	}
	struct winsize ws;
	int cols = !ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col > 20 ? ws.ws_col : 80;
	int room = cols - 2 - (int)strlen(head);
	fprintf(stderr, "\r%s %.*s\033[K", head, room > 0 ? room : 0, p->what);
	live = true;
}

void cli_progress_end(void)
{
	if (live)
		fputs("\r\033[K", stderr);
	live = false;
}
