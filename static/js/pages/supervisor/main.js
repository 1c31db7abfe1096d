// The supervisor console (docs/SUPERVISOR.md): the floor's tiles and open incidents (tiles.js), one
// incident (incident.js), the history (history.js), refreshed by one request (floor.js), what calls
// for attention (alarms.js), and the keys. The rarely opened parts load when first asked for, the
// history when the supervisor comes near it.

import { refresh } from "./floor.js";
import { closeIncident } from "./incident.js";
import { firstChecks } from "./integrity.js";
import "./tiles.js";
import "./alarms.js"; // after tiles.js: it marks the tiles tiles.js has drawn
import { whenNear } from "../../nearby.js";
import { $, emit, on, state } from "./ui.js";
import { openIncidents } from "./words.js";

on("changed", () => refresh());

// The history sits below the floor, the incident and the integrity panel: its module and its rounds
// come when the supervisor nears it (watched once the floor and the checks above it are drawn:
// before, it sits near the top), or presses / or R.
let history = null;
const loadHistory = () => (history ??= import("./history.js"));

// A table's settings dialog (a tile's button) and the reports (closed until the head's link, a page
// opened at #reports or the panel's Open button asks for them) are modules loaded the first time.
on("open-settings", (id) => import("./settings.js").then((m) => m.openSettings(id)));
function openReports() {
  if (location.hash !== "#reports") return;
  $("#reports-body").hidden = false;
  $("#reports-open").hidden = true;
  $("#reports-open").setAttribute("aria-expanded", "true");
  import("./reports.js");
}
$("#reports-open").addEventListener("click", () => { location.hash = "#reports"; openReports(); $("#r-group").focus(); });
window.addEventListener("hashchange", openReports);
openReports();

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName);
  if (e.key === "Escape") {
    if (typing) e.target.blur();
    else if (!anyDialogOpen()) closeIncident();
    return;
  }
  if (typing || anyDialogOpen()) return;
  if (e.key === "/") { e.preventDefault(); $("#q").focus(); loadHistory(); }
  else if (e.key === "r" || e.key === "R") { refresh(); loadHistory().then((m) => m.reload()); }
  else if (/^[1-9]$/.test(e.key)) {
    const item = openIncidents(state.tables)[Number(e.key) - 1];
    if (item) emit("open-incident", item.id);
  }
});

/** A modal dialog is open (raising an incident, a table's settings): the page's keys wait. */
function anyDialogOpen() { return !!document.querySelector("dialog[open]"); }

Promise.all([refresh(), firstChecks]).then(() => whenNear($(".panel.history"), loadHistory));
