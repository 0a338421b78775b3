#include "pipeline/svgplot.h"

#include <math.h>
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

void svgplot_bars(struct strbuf *out, const struct svgplot *p)
{
	const int label_w = 210, plot_w = 470, value_w = 200, bar_h = 20, gap = 8, top = 34;
	int width = label_w + plot_w + value_w, height = top + (int)p->nbars * (bar_h + gap) + 34;
	double vmax = 0, vmin = INFINITY;

	for (size_t i = 0; i < p->nbars; i++) {
		if (isnan(p->bars[i].value))
			continue;
		if (p->bars[i].value > vmax)
			vmax = p->bars[i].value;
		if (p->bars[i].value < vmin)
			vmin = p->bars[i].value;
	}
	if (!isnan(p->band_high) && p->band_high > vmax)
		vmax = p->band_high;
	if (!isnan(p->band_low) && p->band_low < vmin)
		vmin = p->band_low;
	/* Zoom the axis when the bars differ by little, so a 0.5% difference
	 * is visible; the axis start is printed, so the zoom is not hidden. */
	double x0 = 0;
	if (isfinite(vmin) && vmax > 0 && (vmax - vmin) < 0.25 * vmax)
		x0 = vmin - (vmax - vmin) * 1.5 - vmax * 0.005;
	if (x0 < 0)
		x0 = 0;
	double span = vmax > x0 ? (vmax - x0) * 1.05 : 1;
#define X(v) (label_w + (int)(((v) - x0) / span * plot_w))

	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		    width, height, width, height);
	strbuf_addf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
	strbuf_addstr(out, "<text x=\"8\" y=\"20\" font-size=\"14\" font-weight=\"bold\">");
	strbuf_add_xml(out, p->title ? p->title : "");
	strbuf_addstr(out, "</text>\n");
	if (!isnan(p->band_low) && !isnan(p->band_high)) {
		int bx = X(p->band_low), bw = X(p->band_high) - bx;
		if (bw < 2)
			bw = 2;
		/* data-*: the values drawn, so a test can check the picture */
		strbuf_addf(out, "<rect class=\"band\" data-low=\"%.17g\" data-high=\"%.17g\" "
				 "x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f5c542\" "
				 "fill-opacity=\"0.35\" stroke=\"#c99a06\" stroke-dasharray=\"3,2\"/>\n",
			    p->band_low, p->band_high, bx, top - 4, bw, (int)p->nbars * (bar_h + gap) + 2);
	}
	for (size_t i = 0; i < p->nbars; i++) {
		const struct svgplot_bar *b = &p->bars[i];
		int y = top + (int)i * (bar_h + gap);
		char v[32];
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 6,
			    y + bar_h - 6);
		strbuf_add_xml(out, b->label ? b->label : "");
		strbuf_addstr(out, "</text>\n");
		if (isnan(b->value)) {
			strbuf_addf(out, "<text x=\"%d\" y=\"%d\" fill=\"#999\">not measured</text>\n",
				    label_w + 4, y + bar_h - 6);
			continue;
		}
		int w = X(b->value) - label_w;
		if (w < 1)
			w = 1;
		strbuf_addstr(out, "<rect class=\"bar\" data-label=\"");
		strbuf_add_xml(out, b->label ? b->label : "");
		strbuf_addf(out, "\" data-value=\"%.17g\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				 "fill=\"%s\"/>\n",
			    b->value, label_w, y, w, bar_h, i == 0 ? "#4a78b5" : "#7aa6d8");
		human(v, sizeof(v), b->value);
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\">%s", label_w + w + 4, y + bar_h - 6, v);
		if (b->note) {
			strbuf_addch(out, ' ');
			strbuf_add_xml(out, b->note);
		}
		strbuf_addstr(out, "</text>\n");
	}
	int ay = top + (int)p->nbars * (bar_h + gap) + 4;
	char a0[32], a1[32];
	human(a0, sizeof(a0), x0);
	human(a1, sizeof(a1), x0 + span);
	strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
		    label_w, ay, label_w + plot_w, ay);
	strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\" fill=\"#555\">%s</text>\n",
		    label_w, ay + 14, a0);
	strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">%s %s</text>\n",
		    label_w + plot_w, ay + 14, a1, p->unit ? p->unit : "");
	if (p->band_label && !isnan(p->band_low)) {
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\" fill=\"#8a6d00\">", label_w + plot_w / 3,
			    ay + 14);
		strbuf_add_xml(out, p->band_label);
		strbuf_addstr(out, "</text>\n");
	}
	strbuf_addstr(out, "</svg>\n");
#undef X
}
