// The results chart: every player's chips (or points) after each counted round, as inline SVG.
// Values come from the match's history (the server's); this only draws them.

import { esc } from "../../html.js";
import { format, gettext } from "../../i18n.js";

export const COLORS = ["#e6b94a", "#4fa3ff", "#ff6b6b", "#5ad17a", "#c084fc", "#ff9f43"];

function niceStep(span, parts) {
  const raw = span / parts || 1, mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((k) => k * mag).find((v) => v >= raw);
}

/**
 * chartSVG({series, width, chips, start, fmt}) -> the SVG text. `series`: [{name, color, points:
 * [[round, value], ...]}] with round 0 first; `chips`: a chips match (else points); `start`: the
 * chips everyone started with (a dashed line); `fmt(value)`: the value written for the reader.
 */
export function chartSVG({ series, width, chips, start = 0, fmt = String }) {
  const W = Math.max(300, Math.round(width || 600)), H = W < 520 ? 230 : 300;
  const maxX = Math.max(1, ...series.map((s) => s.points[s.points.length - 1][0]));
  const values = series.flatMap((s) => s.points.map((p) => p[1]));
  let lo = Math.min(start, ...values), hi = Math.max(start, ...values, chips ? 0 : 1);
  if (chips && hi - lo < 400) { lo = Math.max(0, lo - 200); hi += 200; }  // a quiet match still gets some height
  const step = Math.max(1, niceStep(hi - lo, 4));
  const yMin = chips ? Math.max(0, Math.floor(lo / step) * step) : 0, yMax = Math.max(yMin + step, Math.ceil(hi / step) * step);
  const labelW = Math.max(...series.map((s) => (s.name + " " + fmt(s.points[s.points.length - 1][1])).length)) * 7.4 + 14;
  const pad = { l: chips ? 50 : 30, r: Math.min(labelW, W * 0.4), t: 12, b: 44 };
  const x = (v) => pad.l + (v / maxX) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - ((v - yMin) / (yMax - yMin)) * (H - pad.t - pad.b);
  const label = chips ? gettext("Chips of each player after each round") : gettext("Points of each player after each round");
  let svg = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(label)}"><g class="grid">`;
  for (let v = yMin; v <= yMax + 1e-9; v += step) {
    svg += `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}"/><text x="${pad.l - 8}" y="${y(v) + 4}" text-anchor="end">${esc(fmt(v))}</text>`;
  }
  const every = maxX <= 10 ? 1 : maxX <= 20 ? 2 : 5;
  for (let v = 0; v <= maxX; v += every) svg += `<text x="${x(v)}" y="${H - pad.b + 18}" text-anchor="middle">${v}</text>`;
  svg += `</g><text x="${(pad.l + W - pad.r) / 2}" y="${H - 6}" text-anchor="middle">${esc(gettext("Round"))}</text>`;
  if (chips) {
    svg += `<line class="base" x1="${pad.l}" x2="${W - pad.r}" y1="${y(start)}" y2="${y(start)}"><title>${
      esc(format(gettext("The %(chips)s chips everyone started with"), { chips: fmt(start) }))}</title></line>`;
  }
  const ends = [];
  series.forEach((s, i) => {
    const nudge = (i - (series.length - 1) / 2) * 1.5;  // level lines stay visible side by side
    const pts = s.points.map(([a, b]) => `${x(a).toFixed(1)},${(y(b) + nudge).toFixed(1)}`).join(" ");
    svg += `<polyline class="line" data-testid="chart-line" data-player="${esc(s.name)}" data-points="${s.points.length}" stroke="${esc(s.color)}" points="${pts}"><title>${esc(s.name)}</title></polyline>`;
    for (const [a, b] of s.points) {
      const tip = format(chips ? gettext("%(name)s · round %(n)s: %(value)s chips") : gettext("%(name)s · round %(n)s: %(value)s points"),
        { name: s.name, n: a, value: fmt(b) });
      svg += `<circle cx="${x(a).toFixed(1)}" cy="${(y(b) + nudge).toFixed(1)}" r="${s.points.length > 21 ? 2 : 3}" fill="${esc(s.color)}"><title>${esc(tip)}</title></circle>`;
    }
    const [la, lb] = s.points[s.points.length - 1];
    ends.push({ s, x: x(la), y: y(lb), v: lb });
  });
  ends.sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) if (ends[i].y - ends[i - 1].y < 15) ends[i].y = ends[i - 1].y + 15;  // labels must not overlap
  for (const e of ends) svg += `<text class="end" x="${e.x + 8}" y="${e.y + 4}" style="fill:${esc(e.s.color)}">${esc(e.s.name)} ${esc(fmt(e.v))}</text>`;
  return svg + "</svg>";
}
