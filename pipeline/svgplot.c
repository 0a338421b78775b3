#include "pipeline/svgplot.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* A human number: 1234567 -> "1.23M". */
static void human(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (a >= 1e9)
		snprintf(buf, len, "%.4gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.4gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.4gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

enum { LABEL_W = 210, PLOT_W = 470, VALUE_W = 200, ROW_H = 20, GAP = 8, TOP = 34 };

/* the row's label and, after its mark, its value and note */
static void row_texts(struct strbuf *out, const struct svgplot_bar *b, int y, double vx)
{
	char v[32];

	strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 6, y + ROW_H - 6);
	strbuf_add_xml(out, b->label ? b->label : "");
	strbuf_addstr(out, "</text>\n");
	if (isnan(b->value))
		return;
	human(v, sizeof(v), b->value);
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%d\">%s", vx + 6, y + ROW_H - 6, v);
	if (b->note) {
		strbuf_addch(out, ' ');
		strbuf_add_xml(out, b->note);
	}
	strbuf_addstr(out, "</text>\n");
}

/* Every row is drawn, however many: the chart grows with them (a chart
 * that stops after a fixed count hides rows without saying so).  Bars
 * start at zero, so a bar's length is its value; where the values differ
 * by so little that bars from zero would look equal, the rows become dots
 * on an axis zoomed to the values (a dot's position, unlike a bar's
 * length, does not claim a ratio), and the chart says where the axis
 * starts and why. */
void svgplot_bars(struct strbuf *out, const struct svgplot *p)
{
	int width = LABEL_W + PLOT_W + VALUE_W, height = TOP + (int)p->nbars * (ROW_H + GAP) + 52;
	double vmax = -INFINITY, vmin = INFINITY;
	bool band = !isnan(p->band_low) && !isnan(p->band_high);

	for (size_t i = 0; i < p->nbars; i++) {
		if (isnan(p->bars[i].value))
			continue;
		vmax = fmax(vmax, p->bars[i].value);
		vmin = fmin(vmin, p->bars[i].value);
	}
	if (band) {
		vmax = fmax(vmax, p->band_high);
		vmin = fmin(vmin, p->band_low);
	}
	/* dots when the spread is under a quarter of the largest value: bars
	 * from zero would differ by less than a quarter of their length */
	bool dots = isfinite(vmin) && vmin >= 0 && vmax > 0 && (vmax - vmin) < 0.25 * vmax;
	double x0 = 0, x1 = isfinite(vmax) && vmax > 0 ? vmax * 1.05 : 1;
	if (dots) {
		double pad = fmax((vmax - vmin) * 0.1, vmax * 0.005);
		x0 = vmin - pad;
		x1 = vmax + pad;
	}
	double span = x1 - x0;
#define X(v) (LABEL_W + ((v) - x0) / span * PLOT_W)

	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart %s\" width=\"%d\" "
			 "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		    dots ? "dots" : "bars", width, height, width, height);
	strbuf_addf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
	strbuf_addstr(out, "<text x=\"8\" y=\"20\" font-size=\"14\" font-weight=\"bold\">");
	strbuf_add_xml(out, p->title ? p->title : "");
	strbuf_addstr(out, "</text>\n");
	if (band) {
		int bx = (int)X(p->band_low), bw = (int)X(p->band_high) - bx;
		if (bw < 2)
			bw = 2;
		/* data-*: the values drawn, so a test can check the picture */
		strbuf_addf(out, "<rect class=\"band\" data-low=\"%.17g\" data-high=\"%.17g\" "
				 "x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f5c542\" "
				 "fill-opacity=\"0.35\" stroke=\"#c99a06\" stroke-dasharray=\"3,2\"/>\n",
			    p->band_low, p->band_high, bx, TOP - 4, bw, (int)p->nbars * (ROW_H + GAP) + 2);
	}
	for (size_t i = 0; i < p->nbars; i++) {
		const struct svgplot_bar *b = &p->bars[i];
		int y = TOP + (int)i * (ROW_H + GAP);
		const char *fill = i == 0 ? "#4a78b5" : "#7aa6d8";

		if (isnan(b->value)) {
			row_texts(out, b, y, 0);
			strbuf_addstr(out, "<text class=\"missing\" data-label=\"");
			strbuf_add_xml(out, b->label ? b->label : "");
			strbuf_addf(out, "\" x=\"%d\" y=\"%d\" fill=\"#999\">not measured</text>\n",
				    LABEL_W + 4, y + ROW_H - 6);
			continue;
		}
		double vx = X(b->value);
		if (dots) {
			strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e4e4e4\"/>\n",
				    LABEL_W, y + ROW_H / 2, LABEL_W + PLOT_W, y + ROW_H / 2);
			strbuf_addstr(out, "<circle class=\"dot\" data-label=\"");
			strbuf_add_xml(out, b->label ? b->label : "");
			strbuf_addf(out, "\" data-value=\"%.17g\" cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"%s\"/>\n",
				    b->value, vx, y + ROW_H / 2, fill);
		} else {
			int w = (int)lround(vx - LABEL_W);
			if (w < 1)
				w = 1;
			strbuf_addstr(out, "<rect class=\"bar\" data-label=\"");
			strbuf_add_xml(out, b->label ? b->label : "");
			strbuf_addf(out, "\" data-value=\"%.17g\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					 "fill=\"%s\"/>\n",
				    b->value, LABEL_W, y, w, ROW_H, fill);
			vx = LABEL_W + w;
		}
		row_texts(out, b, y, vx);
	}
	int ay = TOP + (int)p->nbars * (ROW_H + GAP) + 4;
	char a0[32], a1[32];
	human(a0, sizeof(a0), x0);
	human(a1, sizeof(a1), x1);
	strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LABEL_W, ay,
		    LABEL_W + PLOT_W, ay);
	strbuf_addf(out, "<text class=\"axis-start\" x=\"%d\" y=\"%d\" text-anchor=\"start\" "
			 "fill=\"#555\">%s</text>\n",
		    LABEL_W, ay + 14, a0);
	strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">%s %s</text>\n",
		    LABEL_W + PLOT_W, ay + 14, a1, p->unit ? p->unit : "");
	if (p->band_label && band) {
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\" fill=\"#8a6d00\">", LABEL_W + PLOT_W / 3, ay + 14);
		strbuf_add_xml(out, p->band_label);
		strbuf_addstr(out, "</text>\n");
	}
	if (dots)
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\" fill=\"#555\">dots: the axis starts at %s, not 0 "
				 "(the values differ by %.2g%% of the largest; bars from 0 would hide "
				 "that)</text>\n",
			    LABEL_W, ay + 32, a0, vmax > 0 ? (vmax - vmin) / vmax * 100 : 0);
	strbuf_addstr(out, "</svg>\n");
#undef X
}
