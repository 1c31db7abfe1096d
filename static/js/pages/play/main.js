// The player page (/play/tables/{id}/): the table's stream through stream.js (LiveSocket keeps the
// socket alive, Sequencer applies each table event once and in order and fills a gap from the
// snapshot), the player's own messages, the API for what a snapshot does not say (the balance, my
// bets, my result), and the drawing. Every table event applied is also dispatched on document as
// "play:event", every personal message as "play:personal" (the statistics and history panels
// listen). See docs/PLAYER_PAGE.md.

import { client, pageToken } from "../../api.js";
import { LiveSocket, Sequencer, socketURL } from "../../stream.js";
import { format, gettext } from "../../i18n.js";
import { setupBetting } from "./betting.js";
import { render, tick } from "./render.js";
import { applyEvent, applyPersonal, applySnapshot, balanceAt, bettingOpen, catchUp, newState, phaseOf } from "./state.js";
import { spoken } from "./words.js";

const root = document.getElementById("play");
const TABLE = Number(root.dataset.table);
const TOKEN = pageToken("play-token");
const api = client({ token: TOKEN });
const clock = () => performance.now();
const $ = (id) => document.getElementById(id);

const S = newState();
S.chip = null;
let shownResult = null;   // the newest round whose result this page has shown (null: not known yet)
let connectedOnce = false;

const ctx = { root, token: TOKEN, get now() { return clock(); } };
const redraw = () => { render(S, ctx); noteShown(); };

function noteShown() {
  if (S.result && !S.result.voided && (shownResult === null || S.result.round > shownResult)) shownResult = S.result.round;
}

/* ---- What a screen reader hears: one polite region on the felt ---- */
function say(text) {
  if (!text) return;
  const el = $("announce");
  el.textContent = "";
  el.textContent = text;
}

/* ---- Errors: {"code","message","fields"} from the API, shown as they come ---- */
const toast = $("toast");
let toastTimer = null;
function showError(e) {
  toast.querySelector("strong").textContent = e.message || gettext("Something went wrong.");
  const ul = toast.querySelector("ul");
  ul.textContent = "";
  for (const [field, msgs] of Object.entries(e.fields || {})) {
    for (const msg of [].concat(msgs)) {
      if (msg === e.message) continue;
      const li = document.createElement("li");
      li.textContent = String(msg).startsWith(field) || field === "non_field_errors" ? msg : `${field}: ${msg}`;
      ul.appendChild(li);
    }
  }
  toast.dataset.code = e.code || "";
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(hideError, 7000);
}
function hideError() { toast.hidden = true; }
toast.querySelector(".x").addEventListener("click", hideError);

const betting = setupBetting({ S, api, bettingOpen: () => bettingOpen(S, clock()), redraw, showError, hideError });

/* ---- The stream ---- */
const seq = new Sequencer({
  apply(e) {
    const out = applyEvent(S, e, clock());
    redraw();
    say(spoken(out.say));
    document.dispatchEvent(new CustomEvent("play:event", { detail: e }));
    if (out.snapshot) seq.askOnce();
  },
  reset(snap) {
    applySnapshot(S, snap, clock());
    betting.setupChips();
    redraw();
    if (TOKEN) refreshMine();
    if (!S.round) loadIdleSpots();
  },
  resync,
});

async function resync() {
  try {
    seq.snapshot(await api("GET", `tables/${TABLE}/stream-snapshot/`));
  } catch (e) {
    seq.failed();
    setTimeout(() => seq.askOnce(), 2000);
  }
}

const socket = new LiveSocket(socketURL(`/ws/tables/${TABLE}/`, TOKEN), {
  onMessage(m) {
    if (m.type === "snapshot") {
      const again = connectedOnce;
      connectedOnce = true;
      if (again) S.catchingUp = true;
      seq.snapshot(m);
      return;
    }
    if (m.seq == null) {
      applyPersonal(S, m);
      // An operator's player: the result carries no balance (it is the operator's, credited after
      // the settlement), so it is read again a moment later.
      if ((m.type === "bet.settled" || m.type === "bet.refunded") && m.balance == null) setTimeout(refreshMine, 1500);
      redraw();
      document.dispatchEvent(new CustomEvent("play:personal", { detail: m }));
      return;
    }
    seq.event(m);
  },
  onPong(p) { // the server sent an event this page never got: read the snapshot
    if (p.seq != null && seq.seq !== null && p.seq > seq.seq) seq.askOnce();
  },
  onState: setConn,
});

function setConn(state, delay) {
  const el = $("conn");
  el.dataset.state = state;
  root.dataset.conn = state;
  const text = {
    connecting: gettext("Connecting…"), live: gettext("Live"), gone: gettext("This table is closed"), "signed-out": gettext("Sign in"),
    offline: format(gettext("Reconnecting in %(n)s s…"), { n: Math.max(1, Math.round((delay || 0) / 1000)) }),
  }[state];
  el.querySelector("span").textContent = text;
  redraw();
}

/* ---- What the snapshot does not carry: the balance, my bets of the round, my results ---- */
async function refreshMine() {
  const catching = S.catchingUp;
  S.catchingUp = false;
  try {
    const roundId = S.round ? S.round.id : null;
    const [me, mine, rounds] = await Promise.all([
      api("GET", "me/"),
      roundId ? api("GET", `rounds/${roundId}/bets/`) : null,
      api("GET", `me/rounds/?table=${TABLE}&page_size=5`),  // this table's newest: the current round, the one to repeat
    ]);
    S.balance = balanceAt(me, S.table);
    const rows = rounds.results || rounds;
    if (mine && S.round && S.round.id === roundId) {
      // A won bet's multiplier is in my rounds' row of the round (the bets' list has none).
      const row = rows.find((x) => x.round === roundId);
      const applied = new Map(((row && row.bets) || []).filter((b) => b.multiplier).map((b) => [b.bet, b.multiplier]));
      S.bets = mine.bets.filter((b) => b.status !== "cancelled")
        .map((b) => ({ id: b.id, spot: b.spot, amount: b.amount, status: b.status, payout: b.payout, multiplier: applied.get(b.id) || null }));
      S.bets.forEach((b) => S.known.add(b.id));
    }
    if (shownResult === null && !catching) {
      // First load: what came before is history, not news.
      const last = rows.find((row) => row.table === TABLE && row.net !== null && row.status !== "voided");
      shownResult = last ? last.round : 0;
    }
    const missed = catchUp(S, rows, TABLE, shownResult);
    if (missed) {
      if (missed.status !== "voided") shownResult = Math.max(shownResult, missed.round);
      say(format(gettext("While you were away: round #%(id)s is over."), { id: missed.round }));
    }
    redraw();
  } catch (e) { showError(e); }
}

async function loadIdleSpots() {
  try {
    const rules = await api("GET", `tables/${TABLE}/rules/`);
    if (S.round) return;
    S.idleSpots = rules.spots.map((s) => ({ spot: s.spot, pays: s.pays }));
    redraw();
  } catch { /* the spots come with the first round */ }
}

/* ---- The countdown runs on the page's clock ---- */
let lastPhase = null;
setInterval(() => {
  const phase = phaseOf(S, clock());
  if (phase !== lastPhase) { lastPhase = phase; redraw(); }
  else tick(S, clock());
}, 250);

redraw();
socket.open();
