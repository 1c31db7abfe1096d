// The big road beside the statistics' bead plate: the same results (GET /api/tables/{id}/stats/,
// oldest first, voided rounds left out by the server) laid out by static/js/road.js, drawn as an
// inline SVG of rings (hidden from screen readers), with the streaks as an ordered list for them
// ("Andar 3 in a row", "then Bahar 1", ...) and the current streak said under it.

import { html, raw } from "../../html.js";
import { format, gettext, ngettext, pgettext } from "../../i18n.js";
import { bigRoad, ROAD_ROWS, streaks } from "../../road.js";
import { sideName } from "./words.js";

export const ROAD_COLUMNS = 12;  // the road's width before it grows (and scrolls) with the streaks, as the bead plate's
const STEP = 20, R = 7, PAD = 2;  // the bead plate's pitch

/** "Andar 3 in a row", "Bahar 1": one streak, in words. */
export function streakText({ side, count }) {
  return side === "andar"
    ? ngettext("Andar %(n)s", "Andar %(n)s in a row", count)
    : ngettext("Bahar %(n)s", "Bahar %(n)s in a row", count);
}

function roadSVG(road) {
  const width = road.columns * STEP + PAD * 2, height = road.rows * STEP + PAD * 2;
  let grid = "";
  for (let c = 1; c < road.columns; c++) grid += html`<line x1="${PAD + c * STEP}" x2="${PAD + c * STEP}" y1="${PAD}" y2="${height - PAD}"></line>`;
  for (let r = 1; r < road.rows; r++) grid += html`<line x1="${PAD}" x2="${width - PAD}" y1="${PAD + r * STEP}" y2="${PAD + r * STEP}"></line>`;
  const newest = road.cells[road.cells.length - 1];
  const rings = road.cells.map((cell) => {
    const { result } = cell;
    const tip = format(gettext("Round %(id)s: %(side)s, %(n)s cards"), { id: result.round, side: sideName(cell.side), n: result.cards_dealt });
    return html`<circle class="ring ${cell.side}${cell === newest ? " newest" : ""}" data-round="${result.round}" data-col="${cell.col}" data-row="${cell.row}" cx="${PAD + cell.col * STEP + STEP / 2}" cy="${PAD + cell.row * STEP + STEP / 2}" r="${R}"><title>${tip}</title></circle>`;
  }).join("");
  return html`<svg class="gi-road-svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" aria-hidden="true" focusable="false">`
    + html`<rect class="paper" x="0" y="0" width="${width}" height="${height}" rx="6"></rect><g class="lines">${raw(grid)}</g>${raw(rings)}</svg>`;
}

/** The big road of `results` (the statistics' results, oldest first). */
export function roadHTML(results) {
  const list = streaks(results);
  const road = bigRoad(results, { rows: ROAD_ROWS, least: ROAD_COLUMNS });
  const current = list[list.length - 1];
  const items = list.map((s, i) => html`<li>${i === 0 ? streakText(s) : format(pgettext("a streak after the one before", "then %(streak)s"), { streak: streakText(s) })}</li>`);
  return html`<div class="gi-road" data-testid="big-road">
    <h3 class="gi-sub" id="road-h">${gettext("Big road")} <small class="muted">${gettext("a column per streak")}</small></h3>
    <div class="gi-road-wrap" tabindex="0" role="region" aria-labelledby="road-h">
      ${raw(roadSVG(road))}
      ${list.length ? html`<ol class="sr-only" aria-label="${gettext("Streaks, oldest first")}" data-testid="road-streaks">${items}</ol>` : ""}
    </div>
    <p class="gi-road-now" data-testid="road-now">${current ? format(gettext("Current streak: %(streak)s"), { streak: streakText(current) }) : gettext("No finished round yet.")}</p>
  </div>`;
}
