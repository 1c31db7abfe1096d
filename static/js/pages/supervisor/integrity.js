// The integrity panel (docs/INTEGRITY.md): a traffic light per table and per dealer with a sentence
// on its check nearest an alert and, on demand, every check's figures (GET /api/integrity/, read
// again after each alert and every 10 s; how far a check is on its way to an alert is the server's
// `progress`), and the open alerts, live from the supervisors' stream (ws/supervisors/: a snapshot
// of the open alerts, then integrity.alert and integrity.acknowledged), which alarms.js hears too.
// An alert is acknowledged with a note (POST /api/alerts/{id}/acknowledge/).

import { pageToken } from "../../api.js";
import { html } from "../../html.js";
import { format, gettext, ngettext } from "../../i18n.js";
import { LiveSocket, socketURL } from "../../stream.js";
import { INTEGRITY_ACKNOWLEDGED, INTEGRITY_ALERT } from "../../../supervisor_events.js";
import { when } from "../../time.js";
import { $, api, emit, showError, showOk } from "./ui.js";

const REFRESH_MS = 10000;
const panel = $("#integrity");

/** The open alerts by id, as the stream and the API send them. */
export const alerts = new Map();

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

function alertHTML(a) {
  return html`<li class="ig-alert" data-alert="${a.id}">
    <h4>${subject(a)}: ${checkName(a.check)}</h4>
    <p class="ig-say">${format(gettext("%(what)s: the alert threshold is reached."), { what: checkSentence(a.check) })}</p>
    <p>${format(gettext("Statistic %(stat)s reached the threshold %(threshold)s after round %(round)s, %(time)s."), {
      stat: a.statistic, threshold: a.threshold, round: a.round ?? "-", time: when(a.raised_at) })}</p>
    <form data-ack="${a.id}" autocomplete="off">
      <label for="ig-note-${a.id}">${gettext("Note (what was found or done)")}</label>
      <textarea id="ig-note-${a.id}" name="note" rows="2" maxlength="2000" required></textarea>
      <button type="submit" class="ok small">${gettext("Acknowledge")}</button>
    </form></li>`.toString();
}

/** The open alerts, newest first. An alert already shown keeps its element, so that a note being
 * written in it (and the focus) stays when another alert comes or goes. */
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
  for (const li of [...list.children]) {
    if (!alerts.has(Number(li.dataset.alert))) li.remove();  // acknowledged, or the "no alerts" line
  }
  for (const a of open) {
    if (list.querySelector(`li[data-alert="${a.id}"]`)) continue;
    const template = document.createElement("template");
    template.innerHTML = alertHTML(a);
    list.insertBefore(template.content, [...list.children].find((li) => Number(li.dataset.alert) < a.id) || null);
  }
}

/** What a check watches for, in a floor supervisor's words. */
export function checkSentence(code) {
  const says = {
    first_side_high: gettext("The side dealt the first card wins more often than a fair shoe would"),
    first_side_low: gettext("The side dealt the first card wins less often than a fair shoe would"),
    first_card_match: gettext("The first card matches the joker more often than a fair shoe would"),
    short_deals: gettext("Short deals (1–5 cards) come more often than a fair shoe would"),
    long_deals_missing: gettext("Long deals (21 cards or more) come less often than a fair shoe would"),
    long_deals: gettext("Long deals (21 cards or more) come more often than a fair shoe would"),
    joker_rank: gettext("One rank is the joker more often than a fair shoe would make it"),
    joker_suit: gettext("One suit is the joker more often than a fair shoe would make it"),
    card_absent: gettext("One card has not been seen for longer than a fair shoe would allow"),
    corrections: gettext("Cards are corrected more often than the studio usually does"),
    voids: gettext("Rounds are voided more often than the studio usually does"),
    refused_scans: gettext("Scans are refused more often than the studio usually does"),
    slow_cards: gettext("Cards come slowly more often than the studio usually does"),
    multiplier_spot: gettext("One spot is drawn for a multiplier more often than the setting says"),
    multiplier_top: gettext("The highest multiplier is drawn more often than the setting says"),
    wallet_unacknowledged: gettext("The operator's wallet has left transactions unanswered for too long"),
  };
  return says[code] || checkName(code);
}

/** A table's or dealer's line: its check nearest an alert (an open alert first), in words, with
 * the server's figure of how far it is on its way. */
export function headline(checks) {
  const top = [...checks].sort((a, b) => (b.status === "alert") - (a.status === "alert") || b.progress - a.progress)[0];
  if (!top || (top.progress <= 0 && top.status !== "alert")) return gettext("Nothing unusual so far.");
  const what = checkSentence(top.check);
  return top.status === "alert" || top.progress >= 100 ? format(gettext("%(what)s: the alert threshold is reached."), { what })
    : format(gettext("%(what)s: %(percent)s of the way to an alert."), { what, percent: `${top.progress}%` });
}

const LIGHT = { ok: () => gettext("ok"), watch: () => gettext("watch"), alert: () => gettext("alert") };

function subjectHTML(r) {
  const figures = r.checks.map((c) => html`<tr data-status="${c.status}"><th scope="row">${checkName(c.check)}</th>
    <td>${c.statistic}</td><td>${c.threshold}</td><td>${c.progress}%</td><td><span class="ig-st">${LIGHT[c.status]()}</span></td></tr>`);
  return html`<div class="ig-line"><span class="ig-light" data-status="${r.status}"><i aria-hidden="true"></i>${LIGHT[r.status]()}</span>
    <b class="ig-name">${r.name}</b></div>
    <p class="ig-say">${headline(r.checks)}</p>
    <details data-key="${r.key}"><summary>${gettext("The figures")} · ${ngettext("%(n)s round counted", "%(n)s rounds counted", r.rounds)}</summary>
    <div class="scroll" tabindex="0" role="region" aria-label="${format(gettext("The figures of %(name)s"), { name: r.name })}"><table class="grid ig-table"><thead><tr><th scope="col">${gettext("Check")}</th><th scope="col">${gettext("Statistic")}</th>
    <th scope="col">${gettext("Threshold")}</th><th scope="col">${gettext("Way to an alert")}</th><th scope="col">${gettext("Status")}</th></tr></thead>
    <tbody>${figures}</tbody></table></div></details>`;
}

/** One list of subjects, each updated in place when its figures change (an open disclosure stays open). */
function renderList(list, rows) {
  const keep = new Set(rows.map((r) => r.key));
  list.querySelectorAll(":scope > li").forEach((li) => { if (!keep.has(li.dataset.key)) li.remove(); });
  if (!rows.length) { list.innerHTML = String(html`<li class="empty muted">${gettext("None yet.")}</li>`); return; }
  list.querySelectorAll(":scope > li.empty").forEach((li) => li.remove());
  for (const r of rows) {
    let li = list.querySelector(`:scope > li[data-key="${r.key}"]`);
    if (!li) { li = document.createElement("li"); li.className = "ig-subject"; li.dataset.key = r.key; }
    list.appendChild(li);  // in the server's order
    const markup = String(subjectHTML(r));
    li.dataset.status = r.status;
    if (li.dataset.sig === markup) continue;
    const open = !!li.querySelector("details[open]");
    li.dataset.sig = markup;
    li.innerHTML = markup;
    if (open) li.querySelector("details").open = true;
  }
}

function renderChecks(data) {
  renderList($("#ig-tables"), data.tables.map((t) => ({ key: `table-${t.table}`, ...t })));
  renderList($("#ig-dealers"), data.dealers.map((d) => ({ key: `dealer-${d.dealer}`, ...d })));
}

let timer = null, lastRead = -Infinity;
const FRESH_MS = 5000; // a stream (re)connect's snapshot re-reads the checks only when older than this
export async function refreshChecks() {
  clearTimeout(timer);
  lastRead = Date.now();
  try {
    renderChecks(await api("GET", "integrity/"));
  } catch (e) {
    showError(e);
  } finally {
    timer = setTimeout(refreshChecks, REFRESH_MS);
  }
}

const named = (a) => ({ alert: a, reason: `${subject(a)}: ${checkName(a.check)}` });

/** One message of the supervisors' stream. */
export function onMessage(m) {
  if (m.type === "snapshot") {
    alerts.clear();
    for (const a of m.alerts) alerts.set(a.id, a);
    emit("integrity-alerts", { list: m.alerts.map(named), snapshot: true });
  } else if (m.type === INTEGRITY_ALERT) {
    alerts.set(m.alert.id, m.alert);
    emit("integrity-alerts", { list: [named(m.alert)], snapshot: false });
  } else if (m.type === INTEGRITY_ACKNOWLEDGED) {
    alerts.delete(m.alert.id);
    emit("integrity-acknowledged", m.alert.id);
  } else return;
  renderAlerts();
  if (m.type !== "snapshot" || Date.now() - lastRead > FRESH_MS) refreshChecks(); // the page's first read is fresh
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
    emit("integrity-acknowledged", id);
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
export const firstChecks = refreshChecks(); // resolved once the first checks are drawn
