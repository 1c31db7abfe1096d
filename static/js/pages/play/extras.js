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
  const history = document.getElementById("my-history");
  // My history, below the statistics, comes when the player nears it (once the statistics are drawn)
  if (history && root.dataset.player === "1") {
    drawn.then(() => whenNear(history, () => import("./history.js").then((m) => {
      history.querySelector("[data-loading]")?.remove();
      return m.mountHistory(history, { api, on, replayCss: root.dataset.replayCss });
    })));
  }
  const fairness = document.getElementById("fairness");
  // watched once the statistics above it are drawn: before, the panel sits near the top
  if (fairness) {
    drawn.then(() => whenNear(fairness, () => import("./fairness.js").then((m) => {
      fairness.querySelector("[data-loading]")?.remove();
      return m.mountFairness(fairness, { api, table, on });
    })));
  }
}
