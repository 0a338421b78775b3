/* The study reports' charts and HTML: every row drawn however many (a
 * fixed array once cut a 23-row chart at 16), bars from zero or dots that
 * say where their axis starts, code blocks kept as <pre> lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/study.h"
#include "pipeline/svgplot.h"
#include "util/strbuf.h"

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void draw(struct strbuf *sb, double lo, double step, size_t n, char names[][16])
{
	struct svgplot_bar bars[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], 16, "row-%zu", i + 1);
		bars[i] = (struct svgplot_bar){ names[i], lo + step * (double)i, NULL };
	}
	svgplot_bars(sb, &(struct svgplot){ "t", "u", bars, n, NAN, NAN, NULL });
}

/* 23 rows spread wide: 23 bars, every label, widths proportional to the
 * values (so the axis starts at zero) */
static void test_bars_all_rows_from_zero(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char names[23][16];
	double k = 0;

	(void)state;
	draw(&sb, 100, 100, 23, names);
	assert_int_equal(count(sb.buf, "class=\"bar\""), 23);
	assert_int_equal(count(sb.buf, "class=\"dot\""), 0);
	for (int i = 0; i < 23; i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), ">%.15s</text>", names[i]);
		assert_non_null(strstr(sb.buf, tag));
	}
	/* the scale from the longest bar (the last), where rounding matters least */
	for (int pass = 0; pass < 2; pass++)
		for (const char *p = sb.buf; (p = strstr(p, "class=\"bar\"")); p++) {
			double v = strtod(strstr(p, "data-value=\"") + 12, NULL);
			double w = strtod(strstr(p, "width=\"") + 7, NULL);
			if (pass == 0)
				k = w / v;
			else
				assert_true(fabs(w - v * k) <= 1.5);
		}
	strbuf_release(&sb);
}

/* 23 rows within 10% of each other: dots, and the chart says its axis
 * does not start at zero */
static void test_dots_when_bars_would_hide(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char names[23][16];

	(void)state;
	draw(&sb, 192000, 900, 23, names);
	assert_int_equal(count(sb.buf, "class=\"dot\""), 23);
	assert_int_equal(count(sb.buf, "class=\"bar\""), 0);
	assert_non_null(strstr(sb.buf, "not 0"));
	assert_non_null(strstr(sb.buf, ">row-23</text>"));
	strbuf_release(&sb);
}

/* a row not measured keeps its label and says so */
static void test_missing_row(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct svgplot_bar bars[] = { { "a", 10, NULL }, { "b", NAN, NULL } };

	(void)state;
	svgplot_bars(&sb, &(struct svgplot){ "t", "u", bars, 2, NAN, NAN, NULL });
	assert_int_equal(count(sb.buf, "class=\"missing\" data-label=\"b\""), 1);
	assert_non_null(strstr(sb.buf, ">b</text>"));
	strbuf_release(&sb);
}

/* an indented block is one <pre> with its lines, escaped */
static void test_code_block(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	study_md_to_html(&sb, "text:\n\n    a <b>\n      c\n    \n    d\nafter\n");
	assert_int_equal(count(sb.buf, "<pre>"), 1);
	assert_non_null(strstr(sb.buf, "<pre><code>a &lt;b&gt;\n  c\n\nd</code></pre>\n<p>after</p>"));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bars_all_rows_from_zero),
		cmocka_unit_test(test_dots_when_bars_would_hide),
		cmocka_unit_test(test_missing_row),
		cmocka_unit_test(test_code_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
