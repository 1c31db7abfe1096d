// The dealer console (templates/console.html). No rules here: every decision (which side, a
// duplicate, the match, the window) is the server's. The page sends what the dealer types or scans
// and shows the round the API returns; every refusal goes to the role="alert" banner with a beep,
// and every scan to the scan log (accepted or refused, with the server's reason).

import { client, pageToken } from "../api.js";
import { cardHTML } from "../cards.js";
import { html } from "../html.js";
import { when } from "../time.js";
import { format, gettext } from "../i18n.js";
import { beep, unlockAudio } from "./console/beep.js";
import { route } from "./console/keys.js";
import {
  OPEN, cardCount, emptyEnterHint, lostScan, opensRound, phase as phaseOf, prompt, rulesLine, scanDone, shiftClock, shortCard,
  sideName, stage, statusName,
} from "./console/view.js";

const api = client({ token: pageToken("console-token") });
const TABLE_KEY = "studio.console.table";
const POLL_OPEN_MS = 2000;   // while a round is open: the betting timer or another console may change it
const POLL_IDLE_MS = 6000;   // otherwise: catch settlement, or a round opened elsewhere
const SIDES = ["andar", "bahar"];
const LOG_LENGTH = 8;        // the scan log keeps the last scans, newest first

const $ = (id) => document.getElementById(id);
const ui = {
  root: $("console"), select: $("table-select"), input: $("entry-input"), form: $("entry"), label: $("entry-label"),
  alert: $("alert"), alertText: $("alert-text"), info: $("info"), pill: $("status-pill"), roundLabel: $("round-label"),
  rules: $("rules-line"), joker: $("joker"), main: $("stage-main"), sub: $("stage-sub"), totals: $("stage-totals"),
  clock: $("clock"), ring: $("ring"), countdown: $("countdown"), close: $("btn-close"), fresh: $("btn-new"),
  rows: { andar: $("row-andar"), bahar: $("row-bahar") }, cards: { andar: $("cards-andar"), bahar: $("cards-bahar") },
  counts: { andar: $("count-andar"), bahar: $("count-bahar") },
  shiftLine: $("shift-line"), shiftButton: $("btn-shift"), shift: $("shift"), shiftClock: $("shift-clock"),
  shiftMeter: $("shift-meter"), shiftDue: $("shift-due"), shoeButton: $("btn-shoe"), shoeLine: $("shoe-line"), log: $("scan-log"),
};
const ME = ui.root.dataset.user;
const state = {
  tableId: null, loading: true,
  round: null,            // the round as the server last returned it, or null (none played yet)
  awaitingJoker: false,   // "New round" was asked: the box takes the next joker
  deadline: 0,            // performance.now() when betting closes (from betting_left_ms: no clock skew)
  seq: 0, shown: 0,       // an older answer never overwrites a newer one
  pending: 0, queue: Promise.resolve(), pollTimer: null, alertFromPoll: false,
  drawn: { round: null, count: 0 },
  shift: undefined,       // the table's dealer on shift (GET tables/{id}/shifts/), null: no one, undefined: unknown
  shiftAt: 0,             // performance.now() when the shift's seconds were read (the clock runs on from there)
  shiftMinutes: 0,        // the table's shift length
  shoe: null,             // the table's latest shoe change, or null
  scans: [],              // the scan log: {code, ok, text}, newest first
};

// ---- what the page shows ---------------------------------------------------------------------------
const bettingLeft = () => Math.max(0, state.deadline - performance.now());
const phase = () => phaseOf({ ...state, bettingLeftMs: bettingLeft() });

function render() {
  const p = phase();
  const r = state.awaitingJoker ? null : state.round;
  ui.root.dataset.phase = p;
  const next = r && OPEN.includes(r.status) ? r.next_side : null;
  if (next) ui.root.dataset.next = next; else delete ui.root.dataset.next;

  ui.roundLabel.textContent = r ? format(gettext("Round %(id)s"), { id: r.id }) : (p === "joker" ? gettext("New round") : "");
  ui.pill.textContent = r ? statusName(r.status)
    : p === "joker" ? gettext("Waiting for joker") : p === "loading" ? gettext("Loading…") : gettext("No table");
  ui.pill.dataset.status = r ? r.status : "";
  const option = ui.select.selectedOptions[0];
  ui.rules.textContent = rulesLine(r, option && option.dataset.seconds);

  ui.joker.innerHTML = r ? cardHTML(r.joker)
    : String(html`<div class="card empty" role="img" aria-label="${gettext("no joker yet")}">?</div>`);
  drawRows(r, p);

  const { main, sub, totals } = stage(p, r, state.round);
  ui.main.innerHTML = String(main);
  ui.sub.textContent = sub;
  ui.totals.textContent = totals || "";
  ui.clock.hidden = p !== "betting";
  const [label, placeholder] = prompt(p, r);
  ui.label.textContent = label;
  ui.input.placeholder = placeholder;
  ui.close.disabled = !(p === "betting" || p === "time-up");
  ui.fresh.disabled = !(p === "over" || p === "voided");
  drawShift();
  tick();
}

/** Who is on shift at the table and for how long (the server's count, run on by the page's clock
 *  between reads) against the table's shift length; the warning once the server says rotation is due. */
function drawShift() {
  const s = state.shift;
  ui.shiftButton.hidden = s === undefined || state.tableId === null;
  ui.shoeButton.hidden = ui.shiftButton.hidden;
  ui.shift.hidden = !s;
  if (s) ui.shift.dataset.due = s.rotation_due ? "1" : "0"; else delete ui.shift.dataset.due;
  ui.shiftDue.hidden = !(s && s.rotation_due);
  drawShoe();
  if (s === undefined) { ui.shiftLine.textContent = ""; return; }
  if (s === null) {
    ui.shiftLine.textContent = gettext("No one on shift: sign in, or open a round to start your shift.");
  } else {
    ui.shiftLine.textContent = format(gettext("On shift: %(dealer)s"), { dealer: s.dealer });
    tickShift();
  }
  const mine = Boolean(s && s.dealer === ME);
  ui.shiftButton.textContent = mine ? gettext("Sign out") : gettext("Sign in");
  ui.shiftButton.dataset.action = mine ? "end" : "start";
}

function tickShift() {
  const s = state.shift;
  if (!s) return;
  const seconds = s.seconds + (performance.now() - state.shiftAt) / 1000;
  ui.shiftClock.textContent = shiftClock(seconds, state.shiftMinutes);
  ui.shiftMeter.style.setProperty("--p", Math.min(1, seconds / (state.shiftMinutes * 60 || 1)).toFixed(3));
}

function drawShoe() {
  const shoe = state.shoe;
  ui.shoeLine.textContent = shoe ? format(gettext("Shoe %(n)s since %(time)s (%(by)s)"), { n: shoe.number, time: when(shoe.at), by: shoe.by }) : "";
}

/** The scan log: the last scans, newest first, each accepted (✓) or refused (✗, with the server's reason). */
function logScan(code, ok, text) {
  state.scans.unshift({ code, ok, text });
  state.scans.length = Math.min(state.scans.length, LOG_LENGTH);
  ui.log.innerHTML = state.scans.map((e) => String(html`<li class="${e.ok ? "ok" : "bad"}"><span class="mark" aria-hidden="true">${e.ok ? "✓" : "✗"}</span><span class="sr-only">${e.ok ? gettext("Accepted:") : gettext("Refused:")}</span> <code>${e.code}</code> <span class="what">${e.text}</span></li>`)).join("");
}

function drawRows(r, p) {
  const fresh = r && state.drawn.round === r.id ? state.drawn.count : Infinity;
  const over = r && (r.status === "finished" || r.status === "settled");
  for (const side of SIDES) {
    const cards = r ? r.cards.filter((c) => c.side === side) : [];
    ui.cards[side].innerHTML = cards.length
      ? cards.map((c) => cardHTML(c.card, { pos: c.position, cls: c.position > fresh ? "fresh" : "", match: Boolean(over && c.position === r.cards_dealt) })).join("")
      : String(html`<span class="placeholder">${gettext("no card yet")}</span>`);
    ui.cards[side].classList.toggle("dense", cards.length > 8);
    ui.counts[side].textContent = cardCount(cards.length);
    ui.rows[side].classList.toggle("next", Boolean(r && OPEN.includes(r.status) && r.next_side === side && p !== "betting"));
    ui.rows[side].classList.toggle("won", Boolean(over && r.winner === side));
  }
  state.drawn = { round: r ? r.id : null, count: r ? r.cards.length : 0 };
}

function tick() {
  tickShift();
  if (!state.round || state.round.status !== "betting" || state.awaitingJoker) return;
  const left = bettingLeft();
  const total = ((state.round.settings || {}).betting_seconds || 1) * 1000;
  ui.countdown.textContent = Math.ceil(left / 1000);
  ui.ring.style.setProperty("--p", Math.min(1, left / total).toFixed(3));
  ui.ring.classList.toggle("low", left <= 5000);
  if (left === 0 && ui.root.dataset.phase === "betting") { render(); refreshSoon(); }
}

// ---- messages ----------------------------------------------------------------------------------------
function showAlert(message, code, fromPoll = false) {
  ui.alertText.textContent = message;
  ui.alert.dataset.code = code || "error";
  ui.alert.hidden = false;
  ui.alert.style.animation = "none"; void ui.alert.offsetWidth; ui.alert.style.animation = "";  // shake again
  state.alertFromPoll = fromPoll;
  if (!fromPoll) { info(""); beep(ui.root); }
}
const refused = (err, fromPoll = false) => showAlert(err.message || String(err), err.code, fromPoll);
function clearAlert() { ui.alert.hidden = true; ui.alertText.textContent = ""; state.alertFromPoll = false; }
function info(text) { ui.info.textContent = text; }

// ---- talking to the server ---------------------------------------------------------------------------
function setRound(round) {
  state.loading = false;
  state.round = round;
  if (!round) state.awaitingJoker = true;
  else if (OPEN.includes(round.status)) state.awaitingJoker = false;
  if (round && round.status === "betting") state.deadline = performance.now() + round.betting_left_ms;
  render();
  schedulePoll();
}

async function refresh() {
  const tableId = state.tableId;
  if (tableId === null) return;
  const mine = ++state.seq;
  let round = null;
  const shifts = api("GET", `tables/${tableId}/shifts/`).then((body) => body, () => undefined);
  try {
    round = await api("GET", `tables/${tableId}/current-round/`);
  } catch (err) {
    if (err.status !== 404) throw err;  // 404: no round played at this table yet
  }
  const shifts_ = await shifts;
  if (tableId !== state.tableId || mine < state.shown) return;
  state.shown = mine;
  state.shift = shifts_ ? shifts_.current : undefined;
  state.shiftAt = performance.now();
  if (shifts_) { state.shiftMinutes = shifts_.shift_minutes; state.shoe = shifts_.shoe; }
  setRound(round);
}

/** Sign in to the table (ending the previous dealer's shift there), or sign out of one's own shift. */
async function toggleShift() {
  const s = state.shift;
  if (ui.shiftButton.dataset.action === "end" && s) {
    await api("POST", `shifts/${s.id}/end/`);
    info(gettext("Signed out."));
  } else {
    await api("POST", `tables/${state.tableId}/shifts/`);
    info(gettext("Signed in: you are on shift at this table."));
  }
  clearAlert();
  await refresh();
}

/** A new shoe is in play: the table's change log records it (who and when). */
async function newShoe() {
  const shoe = await api("POST", `tables/${state.tableId}/shoes/`);
  state.shoe = shoe;
  clearAlert();
  info(format(gettext("New shoe recorded: shoe %(n)s."), { n: shoe.number }));
  drawShoe();
}

function refreshSoon() { setTimeout(() => { if (!state.pending) refresh().catch(() => {}); }, 300); }

function schedulePoll() {
  clearTimeout(state.pollTimer);
  const open = state.round && OPEN.includes(state.round.status);
  state.pollTimer = setTimeout(poll, open ? POLL_OPEN_MS : POLL_IDLE_MS);
}

async function poll() {
  if (!document.hidden && !state.pending) {
    try {
      await refresh();
      if (state.alertFromPoll) clearAlert();
    } catch (err) {
      refused(err, true);
    }
  }
  schedulePoll();
}

/* Actions run one after the other, so a scanner's quick scans are dealt in order; each decides
   what to do from the state left by the one before. */
function act(fn) {
  state.pending += 1;
  state.queue = state.queue.then(async () => {
    try {
      await fn();
    } catch (err) {
      refused(err);
      try { await refresh(); } catch { /* the alert already says what went wrong */ }
    } finally {
      state.pending -= 1;
    }
  });
  return state.queue;
}

async function handle(text) {
  const p = phase();
  const r = state.round;
  if (p === "no-table" || p === "loading") {  // loading: cannot happen, the table's refresh is queued first
    if (text) { showAlert(lostScan(text), "not_sent"); logScan(text, false, lostScan(text)); }
    return;
  }
  if (!text) { info(emptyEnterHint(p, r)); return; }
  try {
    logScan(text, true, scanDone(await scanned(p, r, text)));
  } catch (err) {
    logScan(text, false, err.message || String(err));
    throw err;
  }
}

/** A scan: the joker of a new round when the table has no open round (the previous one is over or
 *  voided, or none was played), else the round's next card. What it is, the server decides. */
async function scanned(p, r, text) {
  if (opensRound(p)) {
    const round = await api("POST", `tables/${state.tableId}/rounds/`, { joker: text });
    clearAlert();
    state.awaitingJoker = false;
    state.shown = ++state.seq;
    setRound(round);
    info(format(gettext("Round %(id)s open: joker %(joker)s. Betting closes in %(seconds)s s."),
      { id: round.id, joker: shortCard(round.joker), seconds: Math.ceil(round.betting_left_ms / 1000) }));
    return { opened: round };
  }
  // A card: the server decides (refused while betting is open, after the match, a duplicate...).
  const dealt = await api("POST", `rounds/${r.id}/cards/`, { card: text });
  clearAlert();
  const values = { n: dealt.position, card: shortCard(dealt.card), side: sideName(dealt.side) };
  info(dealt.match ? format(gettext("Card %(n)s: %(card)s to %(side)s · match!"), values)
    : format(gettext("Card %(n)s: %(card)s to %(side)s."), values));
  await refresh();
  return { dealt };
}

/** The phase's deliberate action (the buttons, Ctrl+Enter): close betting, or ask for a new joker. */
async function primary() {
  const p = phase();
  if (p === "betting" || p === "time-up") return closeBetting(state.round);
  if (p === "over" || p === "voided") return newRound();
  if (p === "joker" || p === "dealing" || p === "paused") info(emptyEnterHint(p, state.round));
}

async function closeBetting(r) {
  const round = await api("POST", `rounds/${r.id}/close-betting/`);
  clearAlert();
  state.shown = ++state.seq;
  setRound(round);
  info(format(gettext("Betting closed. First card goes to %(side)s."), { side: sideName(round.next_side) }));
}

function newRound() {
  state.awaitingJoker = true;
  clearAlert();
  info("");
  render();
}

function submit() {
  const text = ui.input.value.trim();
  ui.input.value = "";
  act(() => handle(text));
}

function chooseTable(id) {
  state.tableId = id;
  state.shift = undefined;
  localStorage.setItem(TABLE_KEY, id);
  state.round = null;
  state.awaitingJoker = false;
  state.loading = true;
  state.shown = ++state.seq;
  clearAlert();
  info("");
  render();
  act(refresh);
}

// ---- keyboard and focus: scans always reach the scan box ----------------------------------------------
function focusInput() {
  if (document.activeElement !== ui.input) ui.input.focus({ preventScroll: true });
}
/** Back to the box unless the dealer is on another control on purpose. */
function focusInputIfIdle() {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) focusInput();
}

ui.form.addEventListener("submit", (e) => { e.preventDefault(); submit(); });
ui.shiftButton.addEventListener("click", () => { act(toggleShift).then(focusInput); });
ui.shoeButton.addEventListener("click", () => { act(newShoe).then(focusInput); });
ui.input.addEventListener("keydown", (e) => {
  if (e.key === "Escape") { ui.input.value = ""; clearAlert(); info(""); }
  // Scanners set to end a code with Tab instead of Enter work too; on an empty box Tab moves on.
  if (e.key === "Tab" && !e.shiftKey && ui.input.value.trim()) { e.preventDefault(); submit(); }
});
// Capture phase: before a list's type-ahead or a button's Enter sees the key.
document.addEventListener("keydown", (e) => {
  unlockAudio();
  switch (route(e, ui.input)) {
    case "primary": e.preventDefault(); act(primary); focusInput(); break;
    case "type": e.preventDefault(); focusInput(); ui.input.value += e.key; break;
    case "submit": e.preventDefault(); focusInput(); submit(); break;
    default: break;
  }
}, true);
document.addEventListener("pointerdown", unlockAudio, true);
ui.input.addEventListener("blur", () => setTimeout(focusInputIfIdle, 0));
for (const button of ui.root.querySelectorAll("button")) {
  button.addEventListener("mousedown", (e) => e.preventDefault());  // clicking keeps the focus in the box
}
document.addEventListener("click", (e) => { if (!e.target.closest("select, a, header, button")) focusInput(); });
window.addEventListener("focus", focusInputIfIdle);
ui.close.addEventListener("click", () => {
  act(async () => { if (["betting", "time-up"].includes(phase())) await closeBetting(state.round); });
  focusInput();
});
ui.fresh.addEventListener("click", () => {
  act(async () => { if (["over", "voided"].includes(phase())) newRound(); });
  focusInput();
});
$("alert-close").addEventListener("click", () => { clearAlert(); focusInput(); });
ui.select.addEventListener("change", () => { chooseTable(ui.select.value); focusInput(); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) { refreshSoon(); focusInputIfIdle(); } });
setInterval(tick, 200);

// ---- start: the remembered table, its round from the server -------------------------------------------
const ids = Array.from(ui.select.options, (o) => o.value);
const remembered = localStorage.getItem(TABLE_KEY);
if (!ids.length) {
  state.loading = false;
  render();
} else {
  ui.select.value = ids.includes(remembered) ? remembered : ids[0];
  chooseTable(ui.select.value);
}
focusInput();
