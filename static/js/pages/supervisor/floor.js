// The floor, refreshed every 2 s with one request whatever the number of tables
// (GET /api/floor/: every table, its current round, players, stakes, exposure, open incidents).

import { format, gettext } from "../../i18n.js";
import { when } from "../../time.js";
import { $, api, bus, showError, state } from "./ui.js";

const POLL_MS = 2000;
const live = $("#stat-live"), liveText = $("#stat-live-text");
let timer = null, running = null, again = false;

/** Betting deadlines on this page's clock (performance.now()), by round id. */
export const deadlines = {};

/** Refresh now; asked again meanwhile (after an action), it runs once more right after. */
export function refresh() {
  clearTimeout(timer);
  if (running) { again = true; return running.then(() => running || refresh()); }
  running = once().finally(() => {
    running = null;
    if (again) { again = false; refresh(); } else timer = setTimeout(refresh, POLL_MS);
  });
  return running;
}

async function once() {
  try {
    const tables = await api("GET", "floor/");
    const at = performance.now();
    state.tables = tables;
    for (const t of tables) {
      if (t.round && t.round.status === "betting") deadlines[t.round.id] = at + t.round.betting_left_ms;
    }
    live.dataset.state = "live";
    liveText.textContent = format(gettext("Live · %(time)s"), { time: when(new Date().toISOString()) });
    bus.dispatchEvent(new CustomEvent("floor", { detail: tables }));
  } catch (e) {
    live.dataset.state = "down";
    liveText.textContent = format(gettext("Offline: %(why)s"), { why: e.message });
    if (e.status === 401 || e.status === 403) showError(e);
  }
}
