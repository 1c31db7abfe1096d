// The player page's table switcher (templates/partials/table_switcher.html): a disclosure whose menu
// lists the lobby's tables (GET /api/lobby/, read each time it opens), each a link to its player
// page with what it is doing now (as the lobby's answer says it when the menu opens), the page's own
// table marked. Escape or a click elsewhere closes it. The lobby's words come with the first opening
// (import()): the player page's cold load carries none of them (docs/PLAYER_PAGE.md).

import { client, pageToken } from "../../api.js";
import { html } from "../../html.js";
import { gettext, locale } from "../../i18n.js";

const FINAL = new Set(["finished", "settled"]);

/** A row's phase as the answer gives it (state.js's phaseOf for a lobby that is not followed live). */
function phaseAsRead(row) {
  const r = row.round;
  const closed = row.state && row.state !== "open" ? row.state : null;
  if (!r) return { phase: "waiting", closed };
  if (r.status === "betting") return { phase: "betting", left: Math.ceil((r.betting_left_ms || 0) / 1000), closed };
  if (FINAL.has(r.status)) return { phase: "result", winner: r.winner, cards: r.cards_dealt, closed };
  return { phase: r.status, closed };
}

const box = document.getElementById("table-switcher");
if (box) {
  const here = Number(box.dataset.table);
  const list = document.getElementById("switcher-list");
  const api = client({ token: pageToken("play-token") });
  const summary = box.querySelector("summary");

  const draw = (rows, { countdownText, phaseLine, stateName }) => {
    const loc = locale();
    // a link focused in the list drawn last keeps the focus in the new one (a reader who moved on before it came)
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    list.innerHTML = rows.length ? rows.map((row) => {
      const p = phaseAsRead(row);
      const line = p.closed ? stateName(p.closed) : p.phase === "betting" ? `${phaseLine(p, loc)} · ${countdownText(p.left, loc)}` : phaseLine(p, loc);
      return html`<li><a href="/play/tables/${row.id}/" data-testid="switch-${row.id}"${row.id === here ? html` aria-current="page"` : ""}><b>${
        row.name}</b><small class="${p.phase === "betting" && !p.closed ? "betting" : ""}">${line}</small></a></li>`.toString();
    }).join("") : html`<li class="muted">${gettext("No tables are open to you yet.")}</li>`.toString();
    if (focused) list.querySelector(`[data-testid="${focused}"]`)?.focus();
  };

  box.addEventListener("toggle", async () => {
    if (!box.open) return;
    try {
      const [rows, words] = await Promise.all([api("GET", "lobby/"), import("./words.js")]);
      draw(rows, words);
    } catch (e) {
      list.innerHTML = html`<li class="muted">${e.message}</li>`.toString();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && box.open) { box.open = false; summary.focus(); }
  });
  document.addEventListener("click", (e) => { if (box.open && !box.contains(e.target)) box.open = false; });
}
