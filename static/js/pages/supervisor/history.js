// The searchable history of rounds and incidents, each round's audit trail (its row's button, or a
// click on the row) with empty keys left out, and the link to the CSV file (same filters).

import { redraw } from "../../focus.js";
import { html, raw } from "../../html.js";
import { format, gettext, locale, ngettext, pgettext } from "../../i18n.js";
import { money } from "../../money.js";
import { when } from "../../time.js";
import { $, api, emit, on, showError, tableName } from "./ui.js";
import { auditPairs, kindName, sideName, statusName } from "./words.js";

const STATUSES = { rounds: ["betting", "dealing", "paused", "finished", "settled", "voided"], incidents: ["open", "resolved", "voided"] };
const amount = (v) => money(v, locale(), { places: 2 });
const thead = $("#history-table thead"), tbody = $("#history-table tbody");
let mode = "rounds", expanded = null, seq = 0, typing = null;
const audits = {};

function setMode(m) {
  mode = m;
  for (const [id, which] of [["#tab-rounds", "rounds"], ["#tab-incidents", "incidents"]]) {
    $(id).setAttribute("aria-selected", String(m === which));
    $(id).tabIndex = m === which ? 0 : -1;
  }
  $("#history-panel").setAttribute("aria-labelledby", m === "rounds" ? "tab-rounds" : "tab-incidents");
  $("#f-status").innerHTML = String(html`<option value="">${gettext("Any status")}</option>${STATUSES[m].map((s) => html`<option value="${s}">${statusName(s)}</option>`)}`);
  expanded = null;
  reload();
}
$("#tab-rounds").addEventListener("click", () => setMode("rounds"));
$("#tab-incidents").addEventListener("click", () => setMode("incidents"));
$(".tabs").addEventListener("keydown", (e) => {
  if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
  const next = mode === "rounds" ? "incidents" : "rounds";
  setMode(next);
  $(next === "rounds" ? "#tab-rounds" : "#tab-incidents").focus();
});

function params() {
  const p = new URLSearchParams();
  for (const [k, el] of [["q", "#q"], ["table", "#f-table"], ["status", "#f-status"]]) if ($(el).value.trim()) p.set(k, $(el).value.trim());
  return p;
}

export async function reload() {
  const mine = ++seq, p = params();
  const rounds = new URLSearchParams(p);
  if (mode === "incidents") rounds.delete("status");
  $("#csv-link").href = "/api/rounds/export.csv" + (rounds.toString() ? "?" + rounds : "");
  try {
    if (mode === "rounds") {
      const rows = await api("GET", "rounds/?" + p);
      if (mine === seq) renderRounds(rows);
    } else {
      const table = p.get("table"); p.delete("table");
      let rows = await api("GET", "incidents/?" + p);
      if (table) rows = rows.filter((i) => String(i.table) === table);
      if (mine === seq) renderIncidents(rows);
    }
  } catch (e) { showError(e); }
}

const COLS = 14;
/** The rows are drawn again at each reload (every 10 s, a change on the floor): the focus goes back to
 * the same round's or incident's button. */
function drawBody(markup) {
  redraw(tbody, markup, (active) => {
    const row = active.closest("tr.row");
    if (!row) return null;
    const [key, id] = row.dataset.round ? ["round", row.dataset.round] : ["incident", row.dataset.incident];
    return `tr.row[data-${key}="${id}"] .row-open`;
  });
}
function renderRounds(rows) {
  thead.innerHTML = String(html`<tr><th scope="col">${gettext("Round")}</th><th scope="col">${gettext("Table")}</th><th scope="col">${gettext("Status")}</th>
    <th scope="col">${gettext("Joker")}</th><th scope="col">${gettext("First")}</th><th scope="col">${gettext("Winner")}</th>
    <th scope="col" class="num">${gettext("Cards")}</th><th scope="col" class="num">${gettext("Bets")}</th><th scope="col" class="num">${gettext("Staked")}</th>
    <th scope="col" class="num">${gettext("Paid")}</th><th scope="col" class="num">${gettext("House")}</th><th scope="col" class="num">${gettext("Incidents")}</th>
    <th scope="col">${gettext("Dealer")}</th><th scope="col">${gettext("Opened")}</th></tr>`);
  drawBody(String(rows.length ? html`${rows.map((r) => html`<tr class="row" data-round="${r.id}">
      <td><button type="button" class="row-open" aria-expanded="${expanded === r.id}" ${expanded === r.id ? raw(`aria-controls="audit-${r.id}"`) : ""}
        aria-label="${format(gettext("Round #%(id)s: audit trail"), { id: r.id })}">#${r.id}</button></td>
      <td>${r.table}</td><td><span class="pill" data-status="${r.status}">${statusName(r.status)}</span></td>
      <td>${r.joker}</td><td>${sideName(r.first_side)}</td><td>${r.winner ? sideName(r.winner) : "—"}</td><td class="num">${r.cards_dealt}</td>
      <td class="num">${r.bets}</td><td class="num">${amount(r.staked)}</td><td class="num">${amount(r.paid)}</td>
      <td class="num">${r.house_result === "" ? "" : amount(r.house_result)}</td><td class="num">${r.incidents || ""}</td><td>${r.dealer}</td><td>${when(r.opened_at)}</td></tr>
      ${expanded === r.id ? auditRow(r.id) : ""}`)}`
    : html`<tr><td colspan="${COLS}" class="muted">${gettext("No rounds match.")}</td></tr>`));
  $("#history-foot").textContent = (rows.length >= 200
    ? ngettext("%(n)s round (the newest 200: narrow the search, or export the CSV for all).", "%(n)s rounds (the newest 200: narrow the search, or export the CSV for all).", rows.length)
    : ngettext("%(n)s round.", "%(n)s rounds.", rows.length)) + " " + gettext("Open a round for its audit trail.");
  if (expanded) loadAudit(expanded);
}

function renderIncidents(rows) {
  thead.innerHTML = String(html`<tr><th scope="col">${gettext("Incident")}</th><th scope="col">${gettext("Round")}</th><th scope="col">${gettext("Table")}</th>
    <th scope="col">${gettext("Kind")}</th><th scope="col">${gettext("Status")}</th><th scope="col">${gettext("Raised by")}</th><th scope="col">${gettext("Raised")}</th>
    <th scope="col">${gettext("Resolved by")}</th><th scope="col">${gettext("Resolution")}</th></tr>`);
  drawBody(String(rows.length ? html`${rows.map((i) => html`<tr class="row" data-incident="${i.id}">
      <td><button type="button" class="row-open" aria-label="${format(gettext("Open incident #%(id)s"), { id: i.id })}">#${i.id}</button></td>
      <td>#${i.round}</td><td>${tableName(i.table)}</td><td>${kindName(i.kind)}</td>
      <td><span class="pill" data-status="${i.status}">${statusName(i.status)}</span></td><td>${i.raised_by}</td><td>${when(i.created_at)}</td>
      <td>${i.resolved_by || ""}</td><td>${i.resolution}</td></tr>`)}`
    : html`<tr><td colspan="9" class="muted">${gettext("No incidents match.")}</td></tr>`));
  $("#history-foot").textContent = ngettext("%(n)s incident.", "%(n)s incidents.", rows.length) + " " + gettext("Open an incident to handle it.");
}

function auditRow(id) {
  const events = audits[id];
  const inner = !events ? html`<p class="muted">${gettext("Loading the audit trail…")}</p>`
    : html`<ol class="audit-list" aria-label="${format(gettext("Audit of round #%(id)s"), { id })}">${events.map((ev) => html`
      <li data-action="${ev.action}"><span class="muted">${when(ev.at)}</span><span class="act">${ev.action}</span>
      <span>${ev.actor || pgettext("actor", "system")}</span><span>${ev.from_status || "·"} → ${ev.to_status || "·"}</span>
      <span class="data">${dataHTML(ev.data)}</span></li>`)}</ol>`;
  return html`<tr class="audit" id="audit-${id}" data-audit="${id}"><td colspan="${COLS}">${inner}</td></tr>`;
}

/* An event's data as `key value` pairs, empty keys left out; nested settings as `key=value`, lists joined. */
function dataHTML(data) {
  const value = (v) => Array.isArray(v) ? v.join(", ") : String(v);
  return auditPairs(data).map(([k, v]) => Array.isArray(v) && v.length && Array.isArray(v[0])
    ? html`<span><b>${k}</b> ${v.map(([ik, iv]) => html`<i>${ik}=</i>${Array.isArray(iv) && Array.isArray(iv[0]) ? iv.map(([a, b]) => `${a}=${value(b)}`).join(" ") : value(iv)} `)}</span>`
    : html`<span><b>${k}</b> ${value(v)}</span>`);
}

async function loadAudit(id) {
  try {
    audits[id] = await api("GET", `rounds/${id}/audit/`);
    const row = tbody.querySelector(`tr[data-audit="${id}"]`);
    if (row && expanded === id) row.outerHTML = String(auditRow(id));
  } catch (e) { showError(e); }
}

function toggle(tr) {
  if (tr.dataset.incident) { emit("open-incident", Number(tr.dataset.incident)); return; }
  const id = Number(tr.dataset.round);
  tbody.querySelectorAll("tr.audit").forEach((r) => r.remove());
  tbody.querySelectorAll("tr.row .row-open").forEach((b) => { b.setAttribute("aria-expanded", "false"); b.removeAttribute("aria-controls"); });
  if (expanded === id) { expanded = null; return; }
  expanded = id; delete audits[id];
  tr.insertAdjacentHTML("afterend", String(auditRow(id)));
  tr.querySelector(".row-open").setAttribute("aria-expanded", "true");
  tr.querySelector(".row-open").setAttribute("aria-controls", `audit-${id}`);
  loadAudit(id);
}
tbody.addEventListener("click", (e) => { const tr = e.target.closest("tr.row"); if (tr) toggle(tr); });

$("#filters").addEventListener("submit", (e) => { e.preventDefault(); reload(); });
$("#q").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(reload, 300); });
$("#f-table").addEventListener("change", reload);
$("#f-status").addEventListener("change", reload);
on("changed", reload);
setInterval(() => { if (!document.hidden) reload(); }, 10000);
setMode("rounds");
