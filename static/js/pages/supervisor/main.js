// The supervisor console (docs/SUPERVISOR.md): the floor's tiles and open incidents (tiles.js), one
// incident (incident.js), the history (history.js), refreshed by one request (floor.js), and the keys.

import { refresh } from "./floor.js";
import { closeIncident } from "./incident.js";
import { reload } from "./history.js";
import "./integrity.js";
import "./reports.js";
import "./settings.js";
import "./tiles.js";
import { $, emit, on, state } from "./ui.js";
import { openIncidents } from "./words.js";

on("changed", () => refresh());

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName);
  if (e.key === "Escape") {
    if (typing) e.target.blur();
    else if (!anyDialogOpen()) closeIncident();
    return;
  }
  if (typing || anyDialogOpen()) return;
  if (e.key === "/") { e.preventDefault(); $("#q").focus(); }
  else if (e.key === "r" || e.key === "R") { refresh(); reload(); }
  else if (/^[1-9]$/.test(e.key)) {
    const item = openIncidents(state.tables)[Number(e.key) - 1];
    if (item) emit("open-incident", item.id);
  }
});

/** A modal dialog is open (raising an incident, a table's settings): the page's keys wait. */
function anyDialogOpen() { return !!document.querySelector("dialog[open]"); }

refresh();
