// The player page's game information, mounted into the places templates/play.html leaves for it:
// #stats-panel (the table's statistics), #my-history (a player's own rounds) and #fairness (a
// virtual dealer's proof, added by partials/play_extras.html). The page tells these views what
// happens through document events: "play:event" (each table stream event) and "play:personal"
// (the player's own messages, bet.settled ...). See docs/PLAYER_PAGE.md.
// What only some pages or some moments need is loaded then (import(), rewritten to hashed names by
// studio/storage.py): My history's module and rounds, and the fairness panel's at a virtual dealer's
// table, when the reader comes near them (below the statistics), a replay's when a
// player first asks for one (its style sheet's hashed URL is #play-extras's data-replay-css); a
// cold load carries neither.

import { client, pageToken } from "../../api.js";
import { whenNear } from "../../nearby.js";
import { mountStats } from "./stats.js";

const root = document.getElementById("play-extras");
if (root) {
  const table = Number(root.dataset.table);
  const api = client({ token: pageToken("play-extras-token") });
  const on = (name, handle) => document.addEventListener(name, (e) => handle(e.detail || {}));
  const rules = document.getElementById("rules-link");
  if (rules && !rules.getAttribute("href")) rules.setAttribute("href", root.dataset.rules);
  const stats = document.getElementById("stats-panel");
  const drawn = stats ? mountStats(stats, { api, table, on }) : Promise.resolve();
  // A panel below the statistics is mounted when the reader nears it, watched once the statistics
  // are drawn (before, it sits near the top); its "Loading…" goes once it is mounted.
  const near = (el, mount) => drawn.then(() => whenNear(el, () => mount().then(() => el.querySelector("[data-loading]")?.remove())));
  const history = document.getElementById("my-history");
  if (history && root.dataset.player === "1") {
    near(history, () => import("./history.js").then((m) => m.mountHistory(history, { api, on, replayCss: root.dataset.replayCss })));
  }
  const fairness = document.getElementById("fairness");
  if (fairness) near(fairness, () => import("./fairness.js").then((m) => m.mountFairness(fairness, { api, table, on })));
}
