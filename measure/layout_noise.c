/* The known layout spread; see layout_noise.h. */
#include "measure/layout_noise.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/parse_num.h"
#include "util/xalloc.h"

static void set_event(struct layout_noise *ln, const char *event, size_t len, double sd)
{
	for (size_t i = 0; i < ln->n; i++)
		if (strlen(ln->v[i].event) == len && !strncmp(ln->v[i].event, event, len)) {
			ln->v[i].sd = sd; /* the last one given wins, as options do */
			return;
		}
	ln->v = xrealloc(ln->v, (ln->n + 1) * sizeof(*ln->v));
	ln->v[ln->n].event = xstrndup(event, len);
	ln->v[ln->n++].sd = sd;
}

int layout_noise_parse(struct layout_noise *ln, const char *arg)
{
	const char *eq = strrchr(arg, '=');
	const char *pct = eq ? eq + 1 : arg;
	double sd;

	if (eq == arg)
		return lace_error_set(EINVAL, "--layout-noise '%s': an event before the '='", arg);
	if (parse_percent(pct, 0, 100, &sd))
		return lace_error_set(EINVAL, "--layout-noise '%s': the spread must be a percentage in (0, 100), "
				      "as PCT or EVENT=PCT", arg);
	if (eq)
		set_event(ln, arg, (size_t)(eq - arg), sd);
	else
		ln->all = sd;
	return 0;
}

void layout_noise_release(struct layout_noise *ln)
{
	for (size_t i = 0; i < ln->n; i++)
		free(ln->v[i].event);
	free(ln->v);
	memset(ln, 0, sizeof(*ln));
}

bool layout_noise_any(const struct layout_noise *ln)
{
	return ln->all > 0 || ln->n;
}

double layout_noise_of(const struct layout_noise *ln, const char *event)
{
	for (size_t i = 0; i < ln->n; i++)
		if (!strcmp(ln->v[i].event, event))
			return ln->v[i].sd;
	return ln->all;
}

void layout_noise_describe(const struct layout_noise *ln, struct strbuf *sb)
{
	for (size_t i = 0; i < ln->n; i++)
		strbuf_addf(sb, "%s%s %.3g%%", i ? ", " : "", ln->v[i].event, ln->v[i].sd * 100);
	if (ln->all > 0)
		strbuf_addf(sb, ln->n ? ", others %.3g%%" : "%.3g%%", ln->all * 100);
}

json_t *layout_noise_json(const struct layout_noise *ln)
{
	json_t *o;

	if (!layout_noise_any(ln))
		return json_null();
	o = json_object();
	if (ln->all > 0)
		json_object_set_new(o, "*", json_real(ln->all));
	for (size_t i = 0; i < ln->n; i++)
		json_object_set_new(o, ln->v[i].event, json_real(ln->v[i].sd));
	return o;
}

void layout_noise_from_json(struct layout_noise *ln, const json_t *j)
{
	const char *k;
	json_t *v;

	memset(ln, 0, sizeof(*ln));
	if (json_is_number(j) && json_number_value(j) > 0)
		ln->all = json_number_value(j);
	if (!json_is_object(j))
		return;
	json_object_foreach((json_t *)j, k, v) {
		double sd = json_is_number(v) ? json_number_value(v) : 0;
		if (!(sd > 0))
			continue;
		if (!strcmp(k, "*"))
			ln->all = sd;
		else
			set_event(ln, k, strlen(k), sd);
	}
}
