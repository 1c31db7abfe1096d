// The floor at a glance: a tile per table (its round, clock, cards, joker, players, stakes,
// exposure, a flag when no card has come for longer than expected, its open incident), the list of
// open incidents, and the dialog that raises one. Tiles are built once and updated in place, so
// focus and clicks survive the refresh.

import { cardHTML } from "../../cards.js";
import { redraw } from "../../focus.js";
import { html } from "../../html.js";
import { format, gettext, locale, ngettext } from "../../i18n.js";
import { money } from "../../money.js";
import { ago } from "../../time.js";
import { deadlines, refresh } from "./floor.js";
import { $, api, emit, on, showOk, state, tableName } from "./ui.js";
import { clock, kindName, openIncidents, statusName } from "./words.js";

const tiles = $("#tiles");
const pollAt = {}; // table id -> performance.now() of the floor read, for the silence clock
const amount = (v) => money(v, locale(), { places: 2 });

function tileFor(table) {
  let el = tiles.querySelector(`.tile[data-table="${table.id}"]`);
  if (!el) { el = document.createElement("article"); el.className = "tile"; el.dataset.table = table.id; tiles.appendChild(el); }
  if (!el.querySelector(".tile-stats")) {
    el.innerHTML = String(html`<header class="tile-head"><h3></h3><span class="pill"></span></header>
      <div class="tile-stats">
        <div><small>${gettext("Round")}</small><b data-f="round">—</b></div>
        <div><small data-f="time-label">${gettext("Time left")}</small><b data-f="time" class="timer">—</b></div>
        <div><small>${gettext("Cards")}</small><b data-f="cards">—</b></div>
        <div data-f="joker"></div>
      </div>
      <dl class="tile-money">
        <div><dt>${gettext("Players")}</dt><dd data-f="players">—</dd></div>
        <div><dt>${gettext("Staked")}</dt><dd data-f="staked">—</dd></div>
        <div><dt>${gettext("Exposure")}</dt><dd data-f="exposure">—</dd></div>
        <div class="limits"><dt>${gettext("Stakes")}</dt><dd data-f="limits">—</dd></div>
      </dl>
      <p class="tile-shift" data-f="shift"></p>
      <p class="tile-shift" data-f="shift-money" hidden></p>
      <p class="tile-flag" data-f="state" hidden></p>
      <p class="tile-flag" data-f="rotation" hidden></p>
      <p class="tile-flag" data-f="stalled" role="status" hidden><span class="stopwatch" aria-hidden="true"></span><span data-f="stalled-text"></span></p>
      <button type="button" class="tile-inc" data-f="inc" hidden></button>
      <div class="tile-foot"><button type="button" class="secondary raise-btn">${gettext("Raise incident")}</button><button type="button" class="secondary settings-btn" data-testid="settings-${table.id}">${gettext("Settings")}</button></div>`);
    el.querySelector(".raise-btn").addEventListener("click", () => openRaise(Number(el.dataset.table)));
    el.querySelector(".settings-btn").addEventListener("click", () => emit("open-settings", Number(el.dataset.table)));
    el.querySelector(".tile-inc").addEventListener("click", (e) => emit("open-incident", Number(e.currentTarget.dataset.incident)));
  }
  return el;
}

function renderTiles(tables) {
  const seen = new Set(), at = performance.now();
  for (const t of tables) {
    seen.add(String(t.id));
    pollAt[t.id] = at;
    const el = tileFor(t), r = t.round, status = r ? r.status : "idle";
    el.setAttribute("aria-label", t.name);
    el.dataset.status = status;
    el.dataset.round = r ? r.id : "";
    el.dataset.incident = t.incidents.length ? "open" : "none";
    el.querySelector("h3").textContent = t.name;
    const pill = el.querySelector(".pill");
    pill.dataset.status = status; pill.textContent = statusName(status);
    el.querySelector("[data-f=round]").textContent = r ? `#${r.id}` : "—";
    el.querySelector("[data-f=cards]").textContent = r ? r.cards_dealt : "—";
    const joker = el.querySelector("[data-f=joker]");
    if (joker.dataset.card !== (r ? r.joker : "")) { joker.dataset.card = r ? r.joker : ""; joker.innerHTML = r ? cardHTML(r.joker) : ""; }
    el.querySelector("[data-f=players]").textContent = r ? r.players : "—";
    el.querySelector("[data-f=staked]").textContent = r ? amount(r.staked) : "—";
    el.querySelector("[data-f=exposure]").textContent = r ? amount(r.exposure) : "—";
    el.querySelector("[data-f=limits]").textContent = format(gettext("%(min)s–%(max)s %(currency)s"),
      { min: money(t.min_bet, locale()), max: money(t.max_bet, locale()), currency: t.currency });
    renderShift(el, t);
    const inc = el.querySelector("[data-f=inc]"), incs = t.incidents;
    inc.hidden = !incs.length;
    if (incs.length) {
      inc.dataset.incident = incs[0].id;
      inc.textContent = "⚠ " + (incs.length > 1
        ? format(gettext("Incident #%(id)s · %(kind)s (+%(more)s)"), { id: incs[0].id, kind: kindName(incs[0].kind), more: incs.length - 1 })
        : format(gettext("Incident #%(id)s · %(kind)s"), { id: incs[0].id, kind: kindName(incs[0].kind) }));
    }
    const btn = el.querySelector(".raise-btn");
    btn.disabled = !r || status === "voided";
    btn.title = btn.disabled ? gettext("No round to raise an incident on") : gettext("Pauses the round while betting or dealing");
  }
  tiles.querySelectorAll(".tile").forEach((el) => { if (!seen.has(el.dataset.table)) el.remove(); });
  if (tables.length) tiles.querySelectorAll(":scope > p").forEach((p) => p.remove());
  tick();
}

/** The table's state (closed or maintenance, and why), its dealer on shift for how long and what the
 * shift has taken so far, a rotation due. */
function renderShift(el, t) {
  const s = t.on_shift;
  el.dataset.state = t.state;
  el.querySelector("[data-f=shift]").textContent = s
    ? format(gettext("Dealer %(dealer)s · on shift %(minutes)s of %(length)s min"),
      { dealer: s.dealer, minutes: Math.floor(s.seconds / 60), length: t.shift_minutes })
    : t.driver === "person" ? gettext("No dealer on shift") : "";
  // the shift's settled rounds so far: their stakes and the house's GGR (the server's figures)
  const shiftMoney = el.querySelector("[data-f=shift-money]");
  shiftMoney.hidden = !s;
  if (s) shiftMoney.textContent = `${gettext("Staked")} ${amount(s.turnover)} · ${gettext("GGR")} ${amount(s.ggr)}`;
  const stateFlag = el.querySelector("[data-f=state]");
  stateFlag.hidden = t.state === "open";
  if (t.state !== "open") {
    const name = t.state === "closed" ? gettext("Closed") : gettext("Maintenance");
    stateFlag.textContent = t.state_reason ? `${name}: ${t.state_reason}` : name;
  }
  const rotation = el.querySelector("[data-f=rotation]");
  el.dataset.rotation = s && s.rotation_due ? "due" : "";
  rotation.hidden = !(s && s.rotation_due);
  if (s && s.rotation_due) rotation.textContent = "⟳ " + gettext("Rotation due");
}

/** The clocks between two reads: betting time left, the time held while paused, the silence while dealing. */
function tick() {
  const now = performance.now();
  for (const t of state.tables) {
    const el = tiles.querySelector(`.tile[data-table="${t.id}"]`), r = t.round;
    if (!el || !el.querySelector("[data-f=time]")) continue;
    const out = el.querySelector("[data-f=time]"), label = el.querySelector("[data-f=time-label]");
    let text = "—", cls = "", what = gettext("Time left");
    let stalled = false, silentMs = 0;
    if (r && r.status === "betting") {
      const left = deadlines[r.id] - now;
      text = clock(left); cls = left < 5000 ? "low" : "";
    } else if (r && r.status === "paused" && r.betting_left_ms) {
      text = clock(r.betting_left_ms); cls = "held"; what = gettext("Clock held");
    } else if (r && r.status === "dealing" && r.silent_seconds !== null) {
      silentMs = r.silent_seconds * 1000 + (now - pollAt[t.id]);
      stalled = r.stalled || silentMs > r.expected_seconds * 1000;
      text = clock(silentMs); cls = stalled ? "late" : ""; what = gettext("Last card");
    }
    if (out.textContent !== text) out.textContent = text;
    out.className = "timer " + cls;
    if (label.textContent !== what) label.textContent = what;
    el.dataset.stalled = stalled ? "true" : "false";
    const flag = el.querySelector("[data-f=stalled]");
    flag.hidden = !stalled;
    if (stalled) {
      const msg = format(gettext("No card for %(silence)s (expected within %(expected)s)"),
        { silence: clock(silentMs), expected: clock(r.expected_seconds * 1000) });
      const said = flag.querySelector("[data-f=stalled-text]");
      if (said.textContent !== msg) said.textContent = msg;
    }
  }
}
setInterval(tick, 250);

/* Open incidents, oldest first: the one waiting longest is number 1. */
const openList = $("#open-list");
let openKey = "";
function renderOpen(tables) {
  const items = openIncidents(tables), n = items.length;
  const key = JSON.stringify(items.map((i) => [i.id, i.round_status, i.notes])) + (state.currentIncident || "");
  $("#open-count").textContent = n; $("#open-count").dataset.n = n;
  const stat = $("#stat-incidents");
  stat.dataset.count = n; stat.textContent = ngettext("%(n)s open incident", "%(n)s open incidents", n);
  $("#stat-tables").textContent = ngettext("%(n)s table", "%(n)s tables", tables.length);
  if (key === openKey) { openList.querySelectorAll("[data-ago]").forEach((s) => { s.textContent = ago(s.dataset.ago, locale()); }); return; }
  openKey = key;
  redraw(openList, String(items.length ? html`${items.map((i, k) => html`<li><button type="button" class="inc-item" data-incident="${i.id}" aria-current="${state.currentIncident === i.id}">
      <span class="dot" aria-hidden="true"></span><span class="t">#${i.id} · ${i.tableName}</span>${k < 9 ? html`<kbd>${k + 1}</kbd>` : ""}
      <span class="s">${kindName(i.kind)} · ${format(gettext("round #%(id)s %(status)s"), { id: i.round, status: statusName(i.round_status) })} · <span data-ago="${i.created_at}">${ago(i.created_at, locale())}</span> · ${i.raised_by}</span>
    </button></li>`)}` : html`<li class="empty muted">${gettext("No open incidents.")}</li>`),
  (active) => (active.dataset.incident ? `[data-incident="${active.dataset.incident}"]` : null));
}
openList.addEventListener("click", (e) => { const b = e.target.closest("[data-incident]"); if (b) emit("open-incident", Number(b.dataset.incident)); });

on("floor", (tables) => { renderTiles(tables); renderOpen(tables); });
on("current-incident", () => renderOpen(state.tables));

/* Raise an incident on a table's round. */
export const dialog = $("#raise-dialog");
const dlgAlert = $("#raise-alert");
let raiseRound = null;
function openRaise(tableId) {
  const t = state.tables.find((x) => x.id === tableId), r = t && t.round;
  if (!r) return;
  raiseRound = r.id;
  const running = r.status === "betting" || r.status === "dealing";
  $("#raise-title").textContent = format(gettext("Raise an incident · round #%(id)s"), { id: r.id });
  $("#raise-sub").textContent = format(gettext("%(table)s · the round is %(status)s"), { table: tableName(tableId), status: statusName(r.status) });
  $("#raise-hint").textContent = running
    ? gettext("The round pauses at once: no bet, card or close is accepted and the betting clock stops.")
    : gettext("This round is not running: nothing pauses; you can correct and re-settle it, or void it.");
  $("#raise-submit").textContent = running ? gettext("Raise & pause") : gettext("Raise incident");
  dlgAlert.hidden = true; $("#raise-notes").value = "";
  dialog.showModal();
  $("#raise-kind").focus();
}
$("#raise-cancel").addEventListener("click", () => dialog.close());
$("#raise-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const btn = $("#raise-submit"); btn.disabled = true;
  try {
    const inc = await api("POST", `rounds/${raiseRound}/incidents/`, { kind: $("#raise-kind").value, notes: $("#raise-notes").value });
    emit("incident-raised", inc.id);  // raised here: no alarm for it
    dialog.close();
    showOk(inc.paused_round
      ? format(gettext("Incident #%(id)s raised: round #%(round)s is paused."), { id: inc.id, round: inc.round })
      : format(gettext("Incident #%(id)s raised."), { id: inc.id }));
    await refresh();
    emit("open-incident", inc.id);
    emit("changed");
  } catch (err) {
    dlgAlert.textContent = err.message; dlgAlert.hidden = false;
  } finally { btn.disabled = false; }
});
