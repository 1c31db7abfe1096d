// The player page's table switcher (templates/partials/table_switcher.html): a disclosure whose menu
// lists the lobby's tables (GET /api/lobby/, read each time it opens), each a link to its player
// page with what it is doing now (as the lobby's answer says it when the menu opens), the page's own
// table marked. Escape or a click elsewhere closes it. The lobby's words and its reading of a row's
// phase (state.js) come with the first opening (import()): the player page's cold load carries none
// of them (docs/PLAYER_PAGE.md).

import { client, pageToken } from "../../api.js";
import { html } from "../../html.js";
import { gettext, locale } from "../../i18n.js";

const box = document.getElementById("table-switcher");
if (box) {
  const here = Number(box.dataset.table);
  const list = document.getElementById("switcher-list");
  const api = client({ token: pageToken("play-token") });
  const summary = box.querySelector("summary");

  const draw = (rows, { countdownText, phaseLine, stateName }, { applyLobby, newLobby, phaseOf }) => {
    const loc = locale(), now = performance.now();
    // a link focused in the list drawn last keeps the focus in the new one (a reader who moved on before it came)
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    const lobby = applyLobby(newLobby(), rows, now);  // the lobby page's own reading of the answer, not followed live
    list.innerHTML = lobby.rows.length ? lobby.rows.map((row) => {
      const p = phaseOf(row, now);
      const line = p.closed ? stateName(p.closed) : p.phase === "betting" ? `${phaseLine(p, loc)} · ${countdownText(p.left, loc)}` : phaseLine(p, loc);
      return html`<li><a href="/play/tables/${row.id}/" data-testid="switch-${row.id}"${row.id === here ? html` aria-current="page"` : ""}><b>${
        row.name}</b><small class="${p.phase === "betting" && !p.closed ? "betting" : ""}">${line}</small></a></li>`.toString();
    }).join("") : html`<li class="muted">${gettext("No tables are open to you yet.")}</li>`.toString();
    if (focused) list.querySelector(`[data-testid="${focused}"]`)?.focus();
  };

  box.addEventListener("toggle", async () => {
    if (!box.open) return;
    try {
      const [rows, words, lobby] = await Promise.all([api("GET", "lobby/"), import("./words.js"), import("./state.js")]);
      draw(rows, words, lobby);
    } catch (e) {
      list.innerHTML = html`<li class="muted">${e.message}</li>`.toString();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && box.open) { box.open = false; summary.focus(); }
  });
  document.addEventListener("click", (e) => { if (box.open && !box.contains(e.target)) box.open = false; });
}
