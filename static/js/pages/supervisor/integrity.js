// The integrity panel (docs/INTEGRITY.md): every table's and dealer's checks (GET /api/integrity/,
// read again after each alert and every 10 s) and the open alerts, live from the supervisors'
// stream (ws/supervisors/: a snapshot of the open alerts, then integrity.alert and
// integrity.acknowledged). An alert is acknowledged with a note (POST /api/alerts/{id}/acknowledge/).

import { pageToken } from "../../api.js";
import { html, raw } from "../../html.js";
import { format, gettext, ngettext } from "../../i18n.js";
import { LiveSocket, socketURL } from "../../stream.js";
import { INTEGRITY_ACKNOWLEDGED, INTEGRITY_ALERT } from "../../../supervisor_events.js";
import { when } from "../../time.js";
import { $, api, showError, showOk } from "./ui.js";

const REFRESH_MS = 10000;
const panel = $("#integrity");

/** The open alerts by id, as the stream and the API send them. */
export const alerts = new Map();

const STATUS = { ok: () => gettext("ok"), watch: () => gettext("watch"), alert: () => gettext("alert") };

/** A check's name in words (the API's names are stable codes). */
export function checkName(code) {
  const names = {
    first_side_high: gettext("First side wins often"),
    first_side_low: gettext("First side wins rarely"),
    first_card_match: gettext("Match on the first card"),
    short_deals: gettext("Short deals"),
    long_deals_missing: gettext("Long deals missing"),
    long_deals: gettext("Long deals"),
    joker_rank: gettext("Joker ranks"),
    joker_suit: gettext("Joker suits"),
    card_absent: gettext("Card not seen"),
    corrections: gettext("Corrections"),
    voids: gettext("Voids"),
    refused_scans: gettext("Refused scans"),
    slow_cards: gettext("Seconds per card"),
    wallet_unacknowledged: gettext("Wallet transactions unacknowledged"),
  };
  return names[code] || code;
}

function subject(a) {
  if (a.subject === "operator") return format(gettext("Operator %(name)s"), { name: a.name });
  return a.subject === "table" ? format(gettext("Table %(name)s"), { name: a.name }) : format(gettext("Dealer %(name)s"), { name: a.name });
}

function renderAlerts() {
  const list = $("#ig-alerts");
  const open = [...alerts.values()].sort((x, y) => y.id - x.id);
  $("#ig-count").textContent = String(open.length);
  const nav = document.getElementById("stat-integrity");
  if (nav) {
    nav.dataset.count = String(open.length);
    nav.textContent = open.length ? ngettext("Integrity: %(n)s open alert", "Integrity: %(n)s open alerts", open.length) : gettext("Integrity");
  }
  if (!open.length) {
    list.innerHTML = html`<li class="empty muted">${gettext("No open alerts.")}</li>`.toString();
    return;
  }
  list.innerHTML = open.map((a) => html`<li class="ig-alert" data-alert="${a.id}">
    <h4>${subject(a)}: ${checkName(a.check)}</h4>
    <p>${format(gettext("Statistic %(stat)s reached the threshold %(threshold)s after round %(round)s, %(time)s."), {
      stat: a.statistic, threshold: a.threshold, round: a.round ?? "-", time: when(a.raised_at) })}</p>
    <form data-ack="${a.id}" autocomplete="off">
      <label for="ig-note-${a.id}">${gettext("Note (what was found or done)")}</label>
      <textarea id="ig-note-${a.id}" name="note" rows="2" maxlength="2000" required></textarea>
      <button type="submit" class="ok small">${gettext("Acknowledge")}</button>
    </form></li>`.toString()).join("");
}

function renderChecks(data) {
  const rows = [...data.tables.map((t) => ({ kind: gettext("table"), ...t })), ...data.dealers.map((d) => ({ kind: gettext("dealer"), ...d }))];
  const codes = [];
  for (const r of rows) for (const c of r.checks) if (!codes.includes(c.check)) codes.push(c.check);
  $("#ig-checks thead").innerHTML = html`<tr><th scope="col">${gettext("Table or dealer")}</th><th scope="col">${gettext("Rounds")}</th>${
    raw(codes.map((c) => html`<th scope="col">${checkName(c)}</th>`.toString()).join(""))}</tr>`.toString();
  $("#ig-checks tbody").innerHTML = rows.map((r) => {
    const by = Object.fromEntries(r.checks.map((c) => [c.check, c]));
    const cells = codes.map((code) => {
      const c = by[code];
      if (!c) return "<td>–</td>";
      return html`<td data-status="${c.status}" title="${c.description}"><span class="ig-st">${STATUS[c.status]()}</span> ${c.statistic} / ${c.threshold}</td>`.toString();
    }).join("");
    return html`<tr><th scope="row">${r.name} <span class="ig-kind">${r.kind}</span></th><td>${r.rounds}</td>${raw(cells)}</tr>`.toString();
  }).join("");
}

let timer = null;
export async function refreshChecks() {
  clearTimeout(timer);
  try {
    renderChecks(await api("GET", "integrity/"));
  } catch (e) {
    showError(e);
  } finally {
    timer = setTimeout(refreshChecks, REFRESH_MS);
  }
}

/** One message of the supervisors' stream. */
export function onMessage(m) {
  if (m.type === "snapshot") {
    alerts.clear();
    for (const a of m.alerts) alerts.set(a.id, a);
  } else if (m.type === INTEGRITY_ALERT) {
    alerts.set(m.alert.id, m.alert);
  } else if (m.type === INTEGRITY_ACKNOWLEDGED) {
    alerts.delete(m.alert.id);
  } else return;
  renderAlerts();
  refreshChecks();
}

panel.addEventListener("submit", async (e) => {
  const form = e.target.closest("form[data-ack]");
  if (!form) return;
  e.preventDefault();
  const id = Number(form.dataset.ack);
  const note = form.elements.note.value.trim();
  if (!note) { showError(new Error(gettext("Write a note first: what was found or done."))); form.elements.note.focus(); return; }
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    await api("POST", `alerts/${id}/acknowledge/`, { note });
    alerts.delete(id);
    renderAlerts();
    refreshChecks();
    showOk(gettext("Alert acknowledged."));
  } catch (err) {
    button.disabled = false;
    showError(err);
  }
});

const live = $("#ig-live"), liveText = $("#ig-live-text");
const socket = new LiveSocket(socketURL("/ws/supervisors/", pageToken("sv-token")), {
  onMessage,
  onState: (s) => {
    live.dataset.state = s === "live" ? "live" : s === "connecting" ? "connecting" : "down";
    liveText.textContent = s === "live" ? gettext("Live") : s === "connecting" ? gettext("Connecting…") : s === "signed-out" ? gettext("Sign in")
      : gettext("Offline: reconnecting");
  },
});
socket.open();
refreshChecks();
