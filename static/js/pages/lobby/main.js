// The lobby (/play/, and / for players and visitors): every table the visitor may see, live, over
// one stream (ws/lobby/, stream.js's LiveSocket: reconnect with backoff, liveness by ping): its
// first message is the lobby, then a "lobby.table" event per change of a row. What an event does
// not carry (the players of a round, a private table's changes) is read again from GET /api/lobby/,
// at most once every REFRESH_MS. See docs/PAGES.md and docs/PLAYER_PAGE.md.

import { client } from "../../api.js";
import { html } from "../../html.js";
import { format, gettext, locale } from "../../i18n.js";
import { LiveSocket, socketURL } from "../../stream.js";
import { applyLobby, applyLobbyEvent, newLobby, phaseOf } from "./state.js";
import {
  countdownText, driverName, limitsLine, modeName, multiplierBadge, phaseLine, playersLine, roadHTML, sideBetNames, stateName,
} from "./words.js";

const REFRESH_MS = 10_000;
const root = document.getElementById("lobby");
const list = document.getElementById("lobby-tables");
const api = client({});
const clock = () => performance.now();
const L = newLobby();
let built = "";

/* ---- Drawing: the list is built when its tables change, each row's parts when theirs do (a
   focused link stays where it is while the countdown ticks) ---- */
function set(el, markup) {
  if (el && el.dataset.html !== markup) { el.innerHTML = markup; el.dataset.html = markup; }
}

function rowHTML(row) {
  const id = `lt-${row.id}`;
  return html`<li class="lt" data-table="${row.id}" data-testid="lobby-table-${row.id}">
  <div class="lt-head">
    <h2 id="${id}-name"><a class="lt-link" href="/play/tables/${row.id}/" aria-describedby="${id}-status">${row.name}</a></h2>
    <div class="lt-badges" data-part="badges"></div>
  </div>
  <p class="lt-status" id="${id}-status" data-testid="status" data-part="status"></p>
  <p class="lt-reason" data-testid="reason" data-part="reason" hidden></p>
  <ol class="lt-road" data-testid="road" data-part="road" aria-label="${format(gettext("Last results at %(name)s, oldest first"), { name: row.name })}"></ol>
  <dl class="lt-facts" data-part="facts"></dl>
</li>`.toString();
}

function drawRow(li, row, now) {
  const loc = locale();
  const part = (name) => li.querySelector(`[data-part=${name}]`);
  const p = phaseOf(row, now);
  li.dataset.phase = p.phase;
  li.dataset.state = row.state || "open";
  const badges = [html`<span class="badge driver">${driverName(row.driver)}</span>`];
  if (row.multipliers) badges.push(html`<span class="badge mult" data-testid="multipliers">${multiplierBadge(row.multipliers, loc)}</span>`);
  if (p.closed) badges.push(html`<span class="badge state" data-testid="state">${stateName(p.closed)}</span>`);
  set(part("badges"), badges.map(String).join(""));
  const countdown = p.phase === "betting"
    ? html` <span class="count" data-testid="countdown">${countdownText(p.left, loc)}</span>` : "";
  set(part("status"), html`<span class="dot" aria-hidden="true"></span><span data-testid="phase">${phaseLine(p, loc)}</span>${countdown}`.toString());
  const reason = part("reason");
  const because = p.closed && row.state_reason ? format(gettext("Reason: %(reason)s"), { reason: row.state_reason }) : "";
  reason.hidden = !because;
  if (reason.textContent !== because) reason.textContent = because;
  set(part("road"), roadHTML(row.road, loc));
  const game = [modeName(row.mode), ...sideBetNames(row.side_bets)].join(" · ");
  set(part("facts"), html`<div><dt>${gettext("Stakes")}</dt><dd data-testid="limits">${limitsLine(row, loc)}</dd></div>
<div><dt>${gettext("Game")}</dt><dd data-testid="game">${game}</dd></div>
<div><dt>${gettext("Players")}</dt><dd data-testid="players">${playersLine(row.players || 0, loc)}</dd></div>`.toString());
}

function draw() {
  const now = clock();
  const key = L.rows.map((r) => `${r.id}:${r.name}`).join("|");
  if (key !== built) {
    built = key;
    list.innerHTML = L.rows.map(rowHTML).join("");
    root.dataset.empty = L.rows.length ? "no" : "yes";
    document.getElementById("lobby-empty").hidden = L.rows.length > 0;
  }
  for (const row of L.rows) drawOne(row, now);
}

function drawOne(row, now) {
  const li = list.querySelector(`li[data-table="${row.id}"]`);
  if (li) drawRow(li, row, now);
}

/* ---- What the events do not carry: the lobby read again, at most once every REFRESH_MS ---- */
let refreshing = null;
let lastRefresh = 0;
function refreshSoon() {
  if (refreshing) return;
  const wait = Math.max(0, lastRefresh + REFRESH_MS - clock()) + 500 + Math.random() * 1500; // spread the visitors' reads
  refreshing = setTimeout(async () => {
    lastRefresh = clock();
    try {
      applyLobby(L, await api("GET", "lobby/"), clock());
      draw();
    } catch { /* the next change asks again; the stream's rows stand */ }
    refreshing = null;
  }, wait);
}

/* ---- The stream ---- */
function setConn(state, delay) {
  const el = document.getElementById("lobby-conn");
  el.dataset.state = state;
  const text = {
    connecting: gettext("Connecting…"), live: gettext("Live"), gone: gettext("Reconnecting…"), "signed-out": gettext("Sign in"),
    offline: format(gettext("Reconnecting in %(n)s s…"), { n: Math.max(1, Math.round((delay || 0) / 1000)) }),
  }[state];
  el.querySelector("span").textContent = text;
}

const socket = new LiveSocket(socketURL("/ws/lobby/", ""), {
  onMessage(m) {
    if (m.type === "lobby") {
      applyLobby(L, m.tables, clock());
      root.dataset.ready = "yes";
      draw();
      return;
    }
    const out = applyLobbyEvent(L, m, clock());
    if (out.row) drawOne(out.row, clock());
    if (out.refresh) refreshSoon();
  },
  onState: setConn,
});

/* ---- The countdowns run on the page's clock ---- */
setInterval(() => {
  const now = clock();
  for (const row of L.rows) if (row.round && row.round.status === "betting") drawOne(row, now);
}, 250);

socket.open();
