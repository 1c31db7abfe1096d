// The Reports view's charts as inline SVG, drawn at the width they are shown: one unit of the
// viewBox is one CSS pixel, so their text is the 12 px reports.css sets at any screen size, and
// each chart keeps room for its longest label and figure, so no bar or text is cut off. Columns
// for a series over time (GGR by day), horizontal bars for named rows (hold per bet type, rounds
// per hour by dealer), one bar per series of a row. Every figure is the server's; the charts only
// scale them.

import { html } from "../../html.js";
import { gettext } from "../../i18n.js";

const FONT = 12, PAD = 8, TOP = 10;
let pen = null;

/** How wide a text is drawn at the charts' font: a canvas measures it (an estimate without one). */
export function textWidth(text) {
  if (pen === null) {
    try {
      pen = document.createElement("canvas").getContext("2d");
      pen.font = `${FONT}px ${getComputedStyle(document.body).fontFamily}`;
    } catch { pen = false; }
  }
  return Math.ceil(pen ? pen.measureText(String(text)).width : String(text).length * FONT * 0.62);
}

/** The text cut (with "…") to fit a width. */
function fit(text, width) {
  let t = String(text);
  if (textWidth(t) <= width) return t;
  while (t.length > 1 && textWidth(t + "…") > width) t = t.slice(0, -1);
  return t + "…";
}

function ticks(lo, hi, n = 4) {
  const span = hi - lo || 1;
  const step0 = span / n, mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}

function frame(width, height, titleId, title, parts) {
  return html`<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${titleId}"><title>${title}</title>${parts}</svg>`;
}

const empty = () => html`<p class="chart-empty">${gettext("Nothing in this period.")}</p>`;
const px = (v) => v.toFixed(1);

/**
 * Columns from a zero line, `width` pixels wide: items [{label, values: [numbers], texts: [what
 * each value says]}], one series or two (`classes`, one per series); `valueText` writes the axis.
 */
export function columnChart({ items, width, titleId, title, classes, valueText }) {
  if (!items.length) return empty();
  const H = 240, BOTTOM = FONT + 2 * PAD, series = items[0].values.length;
  const all = items.flatMap((i) => i.values);
  const lo = Math.min(0, ...all), hi = Math.max(0, ...all, lo === 0 ? 1e-9 : 0);
  const grid = ticks(lo, hi);
  const top = Math.max(hi, grid[grid.length - 1]), bottom = Math.min(lo, grid[0]);
  const left = Math.max(...grid.map((t) => textWidth(valueText(t)))) + PAD + 4, right = PAD;
  const y = (v) => TOP + (top - v) / ((top - bottom) || 1) * (H - TOP - BOTTOM);
  const band = (width - left - right) / items.length, bar = Math.max(1, (band * 0.8) / series);
  const labelW = Math.max(...items.map((i) => textWidth(i.label))) + PAD;
  const every = Math.max(1, Math.ceil(labelW / band));  // a label every `every` columns, none overlapping
  const parts = [];
  for (const t of grid) {
    parts.push(html`<line class="grid-line" x1="${left}" x2="${width - right}" y1="${px(y(t))}" y2="${px(y(t))}"></line>`,
      html`<text x="${left - PAD}" y="${px(y(t) + 4)}" text-anchor="end">${valueText(t)}</text>`);
  }
  items.forEach((item, i) => {
    item.values.forEach((v, s) => {
      const x = left + i * band + band * 0.1 + s * bar, y0 = y(Math.max(v, 0)), h = Math.max(1, Math.abs(y(v) - y(0)));
      parts.push(html`<rect class="${classes[s]}${v < 0 ? " neg" : ""}" x="${px(x)}" y="${px(y0)}" width="${px(bar)}" height="${px(h)}"><title>${item.label}: ${item.texts[s]}</title></rect>`);
    });
    if (i % every === 0) {
      const w = textWidth(item.label), mid = left + i * band + band / 2;
      const x = Math.min(Math.max(mid, w / 2 + 1), width - w / 2 - 1);  // kept inside the chart
      parts.push(html`<text x="${px(x)}" y="${H - PAD}" text-anchor="middle">${item.label}</text>`);
    }
  });
  parts.push(html`<line class="axis" x1="${left}" x2="${width - right}" y1="${px(y(0))}" y2="${px(y(0))}"></line>`);
  return frame(width, H, titleId, title, parts);
}

/**
 * Horizontal bars, `width` pixels wide, a row per item in the order given: items [{label, values:
 * [numbers], texts: [each value written], titles: [each value said in full]}], one bar per series
 * (`classes`). The labels take at most 40% of the width (cut with "…", whole in the bar's title);
 * each figure is written at its bar's end, a negative one left of the zero line.
 */
export function barChart({ items, width, titleId, title, classes }) {
  if (!items.length) return empty();
  const series = items[0].values.length, bar = 16, gap = 3, row = series * (bar + gap) + 7;
  const labelW = Math.min(Math.floor(width * 0.4), Math.max(...items.map((i) => textWidth(i.label))));
  const textW = Math.max(...items.flatMap((i) => i.texts.map(textWidth))) + 4;
  const all = items.flatMap((i) => i.values);
  const lo = Math.min(0, ...all), hi = Math.max(0, ...all), span = (hi - lo) || 1;
  const start = labelW + PAD + (lo < 0 ? textW : 0);  // room for a negative bar's figure on its left
  const plot = Math.max(20, width - start - textW - PAD);
  const x = (v) => start + (v - lo) / span * plot, zero = x(0);
  const height = TOP + items.length * row;
  const parts = items.map((item, i) => {
    const y = TOP + i * row;
    const bars = item.values.map((v, s) => {
      const end = x(v), yy = y + s * (bar + gap), w = Math.max(1, Math.abs(end - zero));
      const tx = v < 0 ? end - 4 : zero + w + 4;
      return html`<rect class="${classes[s]}${v < 0 ? " neg" : ""}" x="${px(Math.min(end, zero))}" y="${yy}" width="${px(w)}" height="${bar}"><title>${item.label}: ${(item.titles || item.texts)[s]}</title></rect><text x="${px(tx)}" y="${yy + bar - 4}" text-anchor="${v < 0 ? "end" : "start"}">${item.texts[s]}</text>`;
    });
    return html`<text x="${labelW}" y="${y + (series * (bar + gap)) / 2 + 2}" text-anchor="end">${fit(item.label, labelW)}</text>${bars}`;
  });
  parts.push(html`<line class="axis" x1="${px(zero)}" x2="${px(zero)}" y1="${TOP - 4}" y2="${height}"></line>`);
  return frame(width, height, titleId, title, parts);
}
