/* Declarative options over getopt_long; see parse_options.h. */
#include "util/parse_options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/parse_num.h"
#include "util/strvec.h"
#include "util/xalloc.h"

/* The table with every LACE_OPTION_INCLUDE replaced by what it returns. */
struct flat {
	const struct lace_option **v;
	size_t n, alloc;
};

static void flatten(struct flat *f, const struct lace_option *opts, int depth)
{
	for (const struct lace_option *o = opts; o && o->type != LACE_OPTION_END; o++) {
		if (o->type == LACE_OPTION_INCLUDE) {
			/* a table that includes itself would never end */
			if (depth < 8)
				flatten(f, o->include(), depth + 1);
			continue;
		}
		f->v = xgrow(f->v, sizeof(*f->v), f->n + 1, &f->alloc);
		f->v[f->n++] = o;
	}
}

static bool takes_arg(const struct lace_option *o)
{
	switch (o->type) {
	case LACE_OPTION_SET_BOOL:
	case LACE_OPTION_SET_PTR:
	case LACE_OPTION_GROUP:
		return false;
	case LACE_OPTION_CALLBACK:
		return !(o->flags & LACE_OPTION_NOARG);
	default:
		return true;
	}
}

/* "--repeat" or "-r", for messages */
static void opt_name(const struct lace_option *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
}

/* Store arg as o says; 0 or -EINVAL with "--x needs WHAT, not 'arg'". */
static int apply(const struct lace_option *o, const char *arg)
{
	char name[64], what[96];
	int err = 0;

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case LACE_OPTION_SET_BOOL:
		*(bool *)o->value = o->defval != 0;
		break;
	case LACE_OPTION_SET_PTR:
		*(const void **)o->value = (const void *)o->defval;
		break;
	case LACE_OPTION_STRING:
		*(const char **)o->value = arg;
		break;
	case LACE_OPTION_STRING_LIST:
		strvec_push(o->value, arg);
		break;
	case LACE_OPTION_LONG:
		err = parse_long(arg, o->min, o->max, (long *)o->value);
		if (o->max == LONG_MAX || o->max >= 1000000)
			snprintf(what, sizeof(what), "a whole number >= %ld", o->min);
		else
			snprintf(what, sizeof(what), "a whole number from %ld to %ld", o->min, o->max);
		break;
	case LACE_OPTION_ULONG:
		err = parse_ulong(arg, (unsigned long *)o->value);
		snprintf(what, sizeof(what), "a whole number >= 0");
		break;
	case LACE_OPTION_SIZE:
		err = parse_size(arg, (uint64_t *)o->value);
		snprintf(what, sizeof(what), "a size (4096, 64K, 64M, 1G)");
		break;
	case LACE_OPTION_SECONDS:
		err = parse_seconds(arg, (double *)o->value);
		snprintf(what, sizeof(what), "seconds (10, 1.5, 500ms, 2m)");
		break;
	case LACE_OPTION_PERCENT:
		err = parse_percent(arg, o->dmin, o->dmax, (double *)o->value);
		snprintf(what, sizeof(what), "a percentage in (%g, %g)", o->dmin, o->dmax);
		break;
	case LACE_OPTION_CALLBACK:
		err = o->callback(o, arg);
		if (err)
			return err; /* the callback's own message */
		break;
	case LACE_OPTION_END:
	case LACE_OPTION_INCLUDE:
	case LACE_OPTION_GROUP:
		break;
	}
	if (err)
		return lace_error_set(EINVAL, "%s needs %s, not '%s'", name, what, arg);
	if (o->seen)
		*o->seen = true;
	return 0;
}

int parse_options(int argc, char **argv, const struct lace_option *opts, unsigned flags)
{
	struct flat f = { 0 };
	struct strbuf shorts = STRBUF_INIT;
	int ret = -EINVAL;

	flatten(&f, opts, 0);
	/* ':' first so that getopt names nothing itself and a missing value
	 * comes back as ':'; '+' stops at the command to measure */
	strbuf_addstr(&shorts, flags & PARSE_OPTIONS_STOP_AT_NON_OPTION ? "+:" : ":");
	struct option *longopts = xcalloc(f.n + 1, sizeof(*longopts));
	size_t nlong = 0;
	for (size_t i = 0; i < f.n; i++) {
		const struct lace_option *o = f.v[i];
		if (o->type == LACE_OPTION_GROUP)
			continue;
		if (o->short_name) {
			strbuf_addch(&shorts, o->short_name);
			if (takes_arg(o))
				strbuf_addch(&shorts, ':');
		}
		if (o->long_name)
			longopts[nlong++] = (struct option){ o->long_name,
							     takes_arg(o) ? required_argument : no_argument,
							     NULL, 256 + (int)i };
	}

	optind = 0; /* a full reset: glibc re-reads the flags */
	int c;
	while ((c = getopt_long(argc, argv, shorts.buf, longopts, NULL)) != -1) {
		const char *arg = argv[optind - 1];
		const struct lace_option *o = NULL;
		if (c == ':') {
			lace_error_set(EINVAL, "option '%s' needs a value", arg);
			goto out;
		}
		if (c == '?') {
			if (optopt && optopt != '?')
				lace_error_set(EINVAL, "unknown option '-%c'", optopt);
			else
				lace_error_set(EINVAL, "unknown option '%s'", arg);
			goto out;
		}
		if (c >= 256 && (size_t)(c - 256) < f.n) {
			o = f.v[c - 256];
		} else {
			for (size_t i = 0; i < f.n && !o; i++)
				if (f.v[i]->short_name == c)
					o = f.v[i];
		}
		if (!o || apply(o, optarg))
			goto out;
	}
	ret = optind;
out:
	free(longopts);
	free(f.v);
	strbuf_release(&shorts);
	return ret;
}

/* help text starts in this column, as in git's and perf's usage */
#define HELP_COLUMN 26

void parse_options_usage(struct strbuf *sb, const struct lace_option *opts)
{
	struct flat f = { 0 };

	flatten(&f, opts, 0);
	for (size_t i = 0; i < f.n; i++) {
		const struct lace_option *o = f.v[i];
		if (o->flags & LACE_OPTION_HIDDEN)
			continue;
		if (o->type == LACE_OPTION_GROUP) {
			strbuf_addf(sb, "\n%s\n", o->help);
			continue;
		}
		size_t start = sb->len;
		strbuf_addstr(sb, "  ");
		if (o->short_name)
			strbuf_addf(sb, "-%c%s", o->short_name, o->long_name ? ", " : "");
		else
			strbuf_addstr(sb, "    ");
		if (o->long_name)
			strbuf_addf(sb, "--%s", o->long_name);
		if (takes_arg(o))
			strbuf_addf(sb, " %s", o->argh ? o->argh : "ARG");
		size_t w = sb->len - start;
		if (w + 2 > HELP_COLUMN)
			strbuf_addstr(sb, "  ");
		else
			strbuf_addf(sb, "%*s", (int)(HELP_COLUMN - w), "");
		for (const char *h = o->help ? o->help : ""; *h; h++) {
			strbuf_addch(sb, *h);
			if (*h == '\n' && h[1])
				strbuf_addf(sb, "%*s", HELP_COLUMN, "");
		}
		if (!sb->len || sb->buf[sb->len - 1] != '\n')
			strbuf_addch(sb, '\n');
	}
	free(f.v);
}

void parse_options_list(struct strbuf *sb, const struct lace_option *opts)
{
	struct flat f = { 0 };

	flatten(&f, opts, 0);
	for (size_t i = 0; i < f.n; i++) {
		const struct lace_option *o = f.v[i];
		const char *argh = takes_arg(o) ? (o->argh ? o->argh : "ARG") : "";
		const char *choices = o->choices ? o->choices : "";
		if ((o->flags & LACE_OPTION_HIDDEN) || o->type == LACE_OPTION_GROUP)
			continue;
		if (o->short_name)
			strbuf_addf(sb, "-%c\t%s\t%s\n", o->short_name, argh, choices);
		if (o->long_name)
			strbuf_addf(sb, "--%s\t%s\t%s\n", o->long_name, argh, choices);
	}
	free(f.v);
}
