// The player page's statistics (#stats-panel): the table's last N rounds from
// GET /api/tables/{id}/stats/?last=N (tables/stats.py): a bead plate, the card-count boxes observed
// against what the exact odds expect (an inline SVG chart, and the same counts as a table for
// screen readers), the wins of each side and of the side that got the first card, the longest
// streaks, and the big road of the same results (bigroad.js). Everything counted or expected is
// the server's; this module only draws it.

import { redraw } from "../../focus.js";
import { html, raw } from "../../html.js";
import { format, gettext, locale, ngettext, pgettext } from "../../i18n.js";
import { number } from "../../numbers.js";
import { roadHTML } from "./bigroad.js";
import { refresher } from "./refresh.js";

export const BEAD_ROWS = 6;
export const BEAD_COLUMNS = 12;  // the plate's width before it grows (and scrolls) with the rounds
export const CHOICES = [50, 100, 200];
const SIDE_LETTER = { andar: () => pgettext("bead: Andar", "A"), bahar: () => pgettext("bead: Bahar", "B") };
const SIDE_NAME = { andar: () => pgettext("side", "Andar"), bahar: () => pgettext("side", "Bahar") };

/** The bead plate's columns: results (oldest first) poured column by column, `rows` to a column;
 *  the places still empty are null, and there are at least `least` columns. */
export function beadColumns(results, rows = BEAD_ROWS, least = 0) {
  const columns = [];
  results.forEach((r, i) => {
    if (i % rows === 0) columns.push([]);
    columns[columns.length - 1].push(r);
  });
  while (columns.length < least) columns.push([]);
  return columns.map((col) => [...col, ...Array(rows - col.length).fill(null)]);
}

/** Bars of the card-count chart: for each box its observed count and expected count (decimal
 *  strings from the server) scaled to `height` by the largest of both. */
export function chartBars(boxes, { width = 320, height = 120 } = {}) {
  const top = Math.max(1, ...boxes.map((b) => Math.max(b.observed, Number(b.expected))));
  const slot = boxes.length ? width / boxes.length : width;
  return boxes.map((b, i) => ({
    box: b.box, observed: b.observed, expected: b.expected,
    x: i * slot, slot, observedHeight: (b.observed / top) * height, expectedHeight: (Number(b.expected) / top) * height,
  }));
}

// The chart is drawn at the width it is shown (one SVG unit a pixel), so its 12 px text stays 12 px
// in a narrow side panel: a row per box, its name, a bar of the rounds observed, a dashed mark where
// the expected count falls, and the count.
const CHART = { row: 20, label: 46, count: 34, min: 200 };

export function chartSVG(boxes, width = 320) {
  width = Math.max(CHART.min, Math.round(width));
  const plot = width - CHART.label - CHART.count;
  const bars = chartBars(boxes, { width: plot, height: plot });
  const h = boxes.length * CHART.row + 2;
  const body = bars.map((b, i) => {
    const y = i * CHART.row + 1, mid = y + CHART.row / 2, ex = CHART.label + b.expectedHeight;
    return html`<g><text class="box" x="${CHART.label - 6}" y="${mid + 4}">${b.box}</text>`
      + html`<rect class="obs" x="${CHART.label}" y="${y + 4}" width="${b.observedHeight.toFixed(1)}" height="${CHART.row - 8}"></rect>`
      + html`<line class="exp" x1="${ex.toFixed(1)}" x2="${ex.toFixed(1)}" y1="${y + 1}" y2="${y + CHART.row - 1}"></line>`
      + html`<text class="n" x="${(CHART.label + Math.max(b.observedHeight, b.expectedHeight) + 4).toFixed(1)}" y="${mid + 4}">${b.observed}</text></g>`;
  }).join("");
  return html`<svg class="gi-chart" viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" aria-hidden="true" focusable="false">`
    + html`<line class="axis" x1="${CHART.label}" x2="${CHART.label}" y1="0" y2="${h}"></line>${raw(body)}</svg>`;
}

function beadPlate(results) {
  const columns = beadColumns(results, BEAD_ROWS, BEAD_COLUMNS);
  const last = results[results.length - 1];
  const andar = results.filter((r) => r.winner === "andar").length;
  const label = results.length
    ? format(gettext("Bead plate of the last %(n)s rounds, oldest first, filled column by column: %(a)s Andar, %(b)s Bahar; the latest: %(latest)s."),
      { n: results.length, a: andar, b: results.length - andar, latest: SIDE_NAME[last.winner]() })
    : gettext("No finished round yet.");
  return html`<div class="gi-beads-wrap"><div class="gi-beads" role="img" aria-label="${label}" data-testid="bead-plate">${columns.map((col) => html`<div class="col">${col.map((r) => r === null ? html`<span class="bead empty"></span>` : html`<span class="bead ${r.winner}" data-round="${r.round}" title="${format(gettext("Round %(id)s: %(side)s, %(n)s cards"), { id: r.round, side: SIDE_NAME[r.winner](), n: r.cards_dealt })}">${SIDE_LETTER[r.winner]()}</span>`)}</div>`)}</div></div>`;
}

export function statsHTML(s, last, lang = locale(), width = 320) {
  const rows = s.card_count;
  const expected = (v) => number(v, lang, { min: 2, max: 2 });  // the server's two decimals, as it writes them
  return html`
    <div class="gi-stats-head">
      <p class="gi-counted" data-testid="stats-rounds">${ngettext("%(n)s round counted", "%(n)s rounds counted", s.rounds)}</p>
      <label>${gettext("Show the last")} <select data-testid="stats-last">${CHOICES.map((n) => html`<option value="${n}"${n === last ? raw(" selected") : ""}>${format(gettext("%(n)s rounds"), { n })}</option>`)}</select></label>
    </div>
    ${beadPlate(s.results)}
    ${roadHTML(s.results)}
    <dl class="gi-figures" data-testid="stats-figures">
      <div><dt>${pgettext("side", "Andar")}</dt><dd data-testid="wins-andar">${ngettext("%(n)s win (expected %(e)s)", "%(n)s wins (expected %(e)s)", s.wins.andar, { e: expected(s.expected_wins.andar) })}</dd></div>
      <div><dt>${pgettext("side", "Bahar")}</dt><dd data-testid="wins-bahar">${ngettext("%(n)s win (expected %(e)s)", "%(n)s wins (expected %(e)s)", s.wins.bahar, { e: expected(s.expected_wins.bahar) })}</dd></div>
      <div><dt>${gettext("Side that got the first card")}</dt><dd data-testid="wins-first">${ngettext("%(n)s win (expected %(e)s)", "%(n)s wins (expected %(e)s)", s.first_side_wins, { e: expected(s.expected_first_side_wins) })}</dd></div>
      <div><dt>${gettext("Longest streaks")}</dt><dd data-testid="streaks">${format(gettext("Andar %(a)s, Bahar %(b)s"), { a: s.longest_streaks.andar, b: s.longest_streaks.bahar })}</dd></div>
    </dl>
    <h3 class="gi-sub">${gettext("Cards dealt per round: observed and expected")}</h3>
    <div class="gi-chart-wrap">${rows.length ? raw(chartSVG(rows, width)) : ""}</div>
    <p class="gi-legend" aria-hidden="true"><span class="key obs"></span>${gettext("observed")} <span class="key exp"></span>${gettext("expected")}</p>
    <div class="sr-only"><table data-testid="count-table">
      <caption>${gettext("Card-count boxes: rounds observed and expected")}</caption>
      <thead><tr><th scope="col">${gettext("Cards dealt")}</th><th scope="col">${gettext("Observed")}</th><th scope="col">${gettext("Expected")}</th></tr></thead>
      <tbody>${rows.map((b) => html`<tr><th scope="row">${b.box}</th><td>${b.observed}</td><td>${expected(b.expected)}</td></tr>`)}</tbody>
    </table></div>`;
}

/** Fills the #stats-panel section (after its h2) and keeps it current. */
export function mountStats(section, { api, table, on }) {
  const body = document.createElement("div");
  body.className = "gi-stats";
  body.setAttribute("aria-live", "off");
  section.append(body);
  let last = 100, shown = null, drawnAt = 0;
  const width = () => body.clientWidth || 320;
  const refresh = refresher(async () => {
    try {
      const s = await api("GET", `tables/${table}/stats/?last=${last}`);
      shown = s;
      drawnAt = width();
      redraw(body, String(statsHTML(s, last, locale(), drawnAt)), (active) => (active.matches("select") ? "select" : null));
      for (const plate of body.querySelectorAll(".gi-beads-wrap, .gi-road-wrap")) plate.scrollLeft = plate.scrollWidth;  // the newest in view
    } catch (e) {
      body.innerHTML = String(html`<p class="bad" role="alert">${e.message}</p>`);
    }
  });
  body.addEventListener("change", (e) => {
    if (e.target.matches("select")) {
      last = Number(e.target.value);
      refresh();
    }
  });
  let finished = null; // the round whose end was read: its settlement changes no figure (finished and settled count alike)
  on("play:event", (event) => {
    if (event.type === "round.settled" && event.round === finished) return;
    if (["round.finished", "round.settled", "round.voided", "round.corrected"].includes(event.type)) {
      if (event.type === "round.finished") finished = event.round;
      refresh();
    }
  });
  if ("ResizeObserver" in globalThis) {  // the chart drawn again at the panel's new width
    new ResizeObserver(() => {
      const wrap = body.querySelector(".gi-chart-wrap");
      if (!shown || !wrap || !shown.card_count.length || Math.abs(width() - drawnAt) < 8) return;
      drawnAt = width();
      wrap.innerHTML = String(chartSVG(shown.card_count, drawnAt));
    }).observe(body);
  }
  return refresh();
}
