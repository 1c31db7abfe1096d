// The Reports view of the supervisor console (loaded by main.js when first asked for): GET
// /api/reports/ with the filters, three charts drawn as inline SVG at the width they are shown
// (charts.js: GGR by day, hold observed against theoretical per bet type, rounds per hour by dealer,
// drawn again when that width changes) and the same figures in tables. Every figure is the
// server's; the charts only scale them. Strings: gettext() here and partials/supervisor_reports.html.

import { html } from "../../html.js";
import { format, gettext, locale } from "../../i18n.js";
import { money } from "../../money.js";
import { number } from "../../numbers.js";
import { fields } from "../../time.js";
import { barChart, columnChart } from "./charts.js";
import { $, api, showError } from "./ui.js";
import { spotName } from "./words.js";

const amount = (v) => money(v, locale(), { places: 2 });
const decimal2 = (v) => (v === null || v === undefined ? "–" : number(v, locale(), { min: 2, max: 2 }));
const percent = (v) => (v === null || v === undefined ? "–" : decimal2(v) + " %");
const count = (v) => number(v, locale(), { max: 0 });
const dealers = new Map();  // id -> username, as the reports name them
let seq = 0;

function isoDay(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A row's name for people, by what the report is grouped by: a day as the studio writes dates
 * (2026-12-06, the same in every language: time.js), an hour with its UTC clock. */
export function rowLabel(group, row) {
  if (group === "day" && row.key) return row.key;
  if (group === "hour" && row.key) {
    const t = fields(new Date(row.key), "UTC");
    return `${t.year}-${t.month}-${t.day} ${t.hour}:${t.minute} UTC`;
  }
  if (group === "dealer") return row.label || gettext("No dealer (virtual)");
  if (group === "shift") return row.key ? format(gettext("Shift %(id)s"), { id: row.key }) : gettext("No shift");
  return row.label || String(row.key ?? "");
}

function params(group) {
  const p = new URLSearchParams({ group: group || $("#r-group").value, from: $("#r-from").value, to: $("#r-to").value });
  for (const [k, el] of [["table", "#r-table"], ["dealer", "#r-dealer"]]) if ($(el).value) p.set(k, $(el).value);
  return p;
}

function renderTables(report) {
  const group = report.group;
  $("#report-table thead").innerHTML = String(html`<tr><th scope="col">${gettext("Group")}</th><th scope="col">${gettext("Rounds")}</th>
    <th scope="col">${gettext("Rounds per hour")}</th><th scope="col">${gettext("Seconds per card")}</th><th scope="col">${gettext("Incidents")}</th>
    <th scope="col">${gettext("Voids")}</th><th scope="col">${gettext("Player-rounds")}</th><th scope="col">${gettext("Bets")}</th>
    <th scope="col">${gettext("Stakes")}</th><th scope="col">${gettext("Payouts")}</th><th scope="col">${gettext("GGR")}</th><th scope="col">${gettext("Hold")}</th></tr>`);
  const line = (row, label, cell = "td") => html`<tr><th scope="row">${label}</th><td>${count(row.rounds)}</td><td>${decimal2(row.rounds_per_hour)}</td>
    <td>${decimal2(row.seconds_per_card)}</td><td>${count(row.incidents)}</td><td>${count(row.voids)}</td><td>${count(row.player_rounds)}</td>
    <td>${count(row.bets)}</td><td>${amount(row.stakes)}</td><td>${amount(row.payouts)}</td><td>${amount(row.ggr)}</td><td>${percent(row.hold)}</td></tr>`;
  $("#report-table tbody").innerHTML = report.rows.length ? String(html`${report.rows.map((r) => line(r, rowLabel(group, r)))}`)
    : String(html`<tr><td colspan="12" class="muted">${gettext("Nothing in this period.")}</td></tr>`);
  $("#report-table tfoot").innerHTML = String(line(report.total, gettext("Total")));
  $("#report-spots thead").innerHTML = String(html`<tr><th scope="col">${gettext("Bet type")}</th><th scope="col">${gettext("Bets")}</th>
    <th scope="col">${gettext("Stakes")}</th><th scope="col">${gettext("Payouts")}</th><th scope="col">${gettext("GGR")}</th>
    <th scope="col">${gettext("Hold observed")}</th><th scope="col">${gettext("Hold theoretical")}</th></tr>`);
  $("#report-spots tbody").innerHTML = String(html`${report.total.spots.map((s) => html`<tr><th scope="row">${spotName(s.spot)}</th>
    <td>${count(s.bets)}</td><td>${amount(s.stakes)}</td><td>${amount(s.payouts)}</td><td>${amount(s.ggr)}</td>
    <td>${percent(s.hold)}</td><td>${percent(s.theoretical_hold)}</td></tr>`)}`);
}

/** The width a chart's body has on screen (its SVG is drawn that wide). */
const widthOf = (id) => Math.max(240, Math.floor($(`#${id} .chart-body`).getBoundingClientRect().width));
let drawn = null;  // the last figures drawn, to draw again at a new width

function renderCharts(main, byDay, byDealer) {
  drawn = [main, byDay, byDealer];
  $("#chart-ggr .chart-body").innerHTML = String(columnChart({
    width: widthOf("chart-ggr"), titleId: "chart-ggr-title", title: gettext("GGR by day"), classes: ["bar-ggr"],
    valueText: (v) => money(String(v.toFixed(2)), locale()),
    items: byDay.rows.map((r) => ({ label: rowLabel("day", r), values: [Number(r.ggr)], texts: [amount(r.ggr)] })),
  }));
  $("#chart-hold .chart-body").innerHTML = String(barChart({
    width: widthOf("chart-hold"), titleId: "chart-hold-title", title: gettext("Hold per bet type: observed and theoretical"),
    classes: ["bar-observed", "bar-theory"],
    items: main.total.spots.filter((s) => s.hold !== null).map((s) => ({
      label: spotName(s.spot), values: [Number(s.hold), Number(s.theoretical_hold ?? 0)],
      texts: [percent(s.hold), percent(s.theoretical_hold)],
      titles: [format(gettext("observed %(v)s"), { v: percent(s.hold) }), format(gettext("theoretical %(v)s"), { v: percent(s.theoretical_hold) })],
    })),
  }));
  $("#chart-pace .chart-body").innerHTML = String(barChart({
    width: widthOf("chart-pace"), titleId: "chart-pace-title", title: gettext("Rounds per hour by dealer"), classes: ["bar-pace"],
    items: byDealer.rows.filter((r) => r.rounds_per_hour !== null)
      .map((r) => ({ label: rowLabel("dealer", r), values: [Number(r.rounds_per_hour)], texts: [decimal2(r.rounds_per_hour)] }))
      .sort((a, b) => b.values[0] - a.values[0]),
  }));
}
let widths = "";
new ResizeObserver(() => {
  const now = ["chart-ggr", "chart-hold", "chart-pace"].map(widthOf).join();
  if (drawn && now !== widths) renderCharts(...drawn);
  widths = now;
}).observe($(".report-charts"));

function rememberDealers(byDealer) {
  for (const r of byDealer.rows) if (r.key) dealers.set(r.key, r.label);
  const select = $("#r-dealer"), chosen = select.value;
  select.innerHTML = String(html`<option value="">${gettext("All dealers")}</option>${[...dealers].sort((a, b) => a[1].localeCompare(b[1]))
    .map(([id, name]) => html`<option value="${id}">${name}</option>`)}`);
  select.value = chosen;
}

export async function load() {
  const mine = ++seq, group = $("#r-group").value;
  $("#r-csv").href = "/api/reports/?" + params() + "&format=csv";
  $("#r-status").textContent = gettext("Loading…");
  try {
    const main = await api("GET", "reports/?" + params());
    const [byDay, byDealer] = await Promise.all([
      group === "day" ? main : api("GET", "reports/?" + params("day")),
      group === "dealer" ? main : api("GET", "reports/?" + params("dealer")),
    ]);
    if (mine !== seq) return;
    rememberDealers(byDealer);
    renderTables(main);
    renderCharts(main, byDay, byDealer);
    $("#r-status").textContent = format(gettext("%(rounds)s rounds, GGR %(ggr)s, from %(from)s to %(to)s (UTC; days in %(tz)s)."), {
      rounds: count(main.total.rounds), ggr: amount(main.total.ggr), from: main.from, to: main.to, tz: main.time_zone });
  } catch (err) {
    if (mine !== seq) return;
    $("#r-status").textContent = "";
    showError(err);
  }
}

// The period presets ("to" is the day after the last); the pressed one is the period the form shows.
const PRESETS = { today: [0, 1], yesterday: [-1, 0], week: [-6, 1], month: [null, 1] };
function period(preset, now) {
  const [from, to] = PRESETS[preset], day = (n) => isoDay(new Date(now.getFullYear(), now.getMonth(), n === null ? 1 : now.getDate() + n));
  return [day(from), day(to)];
}
const presets = document.querySelectorAll("#r-presets [data-preset]");
function markPreset() {
  for (const b of presets) b.setAttribute("aria-pressed", String(period(b.dataset.preset, new Date()).join() === `${$("#r-from").value},${$("#r-to").value}`));
}
function choose(preset) {
  [$("#r-from").value, $("#r-to").value] = period(preset, new Date());
  markPreset();
}
choose("today"); // reports open on today
for (const b of presets) b.addEventListener("click", () => { choose(b.dataset.preset); load(); });
for (const input of [$("#r-from"), $("#r-to")]) input.addEventListener("change", markPreset);
$("#report-form").addEventListener("submit", (e) => { e.preventDefault(); load(); });
// Read when asked for (the console's Reports link, or a page opened at #reports), not with every
// console: the floor's refresh stays its one request.
let loaded = false;
function asked() {
  if (location.hash === "#reports" && !loaded) { loaded = true; load(); }
}
window.addEventListener("hashchange", asked);
asked();
