// Server-rendered SVG charts: stacked bars per day, one colour per series, a <title> per bar for pointer users and a
// data table beside every chart (the page's) for keyboard and screen-reader users. No script, no library, no inline
// style (the pages' Content-Security-Policy allows only the service's own stylesheet).
import { html, type Html } from "./html.js";

/** Colour-blind-safe (Okabe-Ito), in a fixed order so a collection keeps its colour across charts. */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

interface StackedBars {
  /** an id unique on the page (aria references) */
  id: string;
  title: string;
  /** the x axis, oldest first (YYYY-MM-DD) */
  days: string[];
  /** one series per stacked colour */
  series: { name: string; values: Map<string, number> }[];
  /** how a value reads in a bar's tooltip and on the axis */
  format: (value: number) => string;
  /** what the days are, for the chart's accessible title; unset: "over the last N days" */
  period?: string;
  /** the drawing's width in its own units (the height stays): wider for a chart across the whole page */
  width?: number;
}

const DEFAULT_WIDTH = 760;
const H = 240;
const PAD = { left: 64, right: 12, top: 14, bottom: 34 };

/** A round top for the y axis at or above `max` (1, 2 or 5 times a power of ten). */
function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const seriesColour = (index: number): string => PALETTE[index % PALETTE.length]!;

export function stackedBarChart(chart: StackedBars): Html {
  const W = chart.width ?? DEFAULT_WIDTH;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const totals = chart.days.map((d) => chart.series.reduce((s, ser) => s + (ser.values.get(d) ?? 0), 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const slot = plotW / Math.max(1, chart.days.length);
  // a gap of 4 between bars while they are wide enough; a quarter of the slot when a long range packs them
  const barW = slot > 8 ? slot - 4 : Math.max(1, slot * 0.75);
  const gap = (slot - barW) / 2;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const bars = chart.days.flatMap((day, i) => {
    let base = 0;
    return chart.series.flatMap((ser, s) => {
      const v = ser.values.get(day) ?? 0;
      if (v <= 0) return [];
      const y0 = y(base);
      base += v;
      const y1 = y(base);
      const x = (PAD.left + i * slot + gap).toFixed(1);
      const height = Math.max(1, y0 - y1).toFixed(1);
      const title = html`<title>${day} ${ser.name}: ${chart.format(v)}</title>`;
      return [
        html`<rect class="bar" x="${x}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${height}"
 fill="${seriesColour(s)}" data-day="${day}" data-series="${ser.name}" data-value="${v}">${title}</rect>`,
      ];
    });
  });
  const ticks = [0, top / 2, top].map((v) => {
    const at = y(v).toFixed(1);
    return html`<g class="tick"><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${at}" y2="${at}"/>
<text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${chart.format(v)}</text></g>`;
  });
  // every day of the range has its mark on the axis, so a day without activity still reads as a day
  const axis = html`<g class="axis"><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(0).toFixed(1)}"
 y2="${y(0).toFixed(1)}"/>${chart.days.map((_, i) => {
   const at = (PAD.left + i * slot + slot / 2).toFixed(1);
   return html`<line x1="${at}" x2="${at}" y1="${y(0).toFixed(1)}" y2="${(y(0) + 3).toFixed(1)}" class="mark"/>`;
 })}</g>`;
  const every = Math.max(1, Math.ceil(chart.days.length / 8));
  const labels = chart.days.flatMap((day, i) =>
    (i % every === 0 && chart.days.length - 1 - i >= every / 2) || i === chart.days.length - 1
      ? [
          html`<text x="${(PAD.left + i * slot + slot / 2).toFixed(1)}" y="${H - 12}"
 text-anchor="middle">${day.slice(5)}</text>`,
        ]
      : [],
  );
  const legend = chart.series.map(
    (ser, s) =>
      html`<li><svg class="swatch" width="12" height="12" aria-hidden="true"><rect width="12" height="12"
 fill="${seriesColour(s)}"/></svg>${ser.name}</li>`,
  );
  const names = chart.series.length ? `, by ${chart.series.map((s) => s.name).join(", ")}` : ", no activity";
  const caption = chart.series.length
    ? html`<ul class="legend">${legend}</ul>`
    : html` <em>(nothing in these days)</em>`;
  return html`<figure class="chart${chart.width ? " wide" : ""}" id="${chart.id}">
  <svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${chart.id}-title" preserveAspectRatio="xMidYMid meet">
    <title id="${chart.id}-title">${chart.title}, per day ${
      chart.period ?? `over the last ${chart.days.length} days`
    }${names}</title>
    ${ticks}
    ${axis}
    ${bars}
    ${labels}
  </svg>
  <figcaption>${chart.title}${caption}</figcaption>
</figure>`;
}
