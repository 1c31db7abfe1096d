// The table settings dialog (templates/partials/supervisor_table_settings.html), opened from a tile
// (loaded by main.js the first time one is, with its style sheet):
// the table's random multipliers as fields (GET and PATCH /api/tables/{id}/): a switch, a checkbox
// per spot the table offers, the number drawn each round, rows of multiplier and weight; the fields
// to the setting and back are multipliers.js's. A refusal's `fields.multipliers` is shown at the
// fieldset, anything else in the dialog's alert. And every spot's exact return as the table is set
// now (GET /api/tables/{id}/odds/, whose rows list the offered spots in display order), a spot the
// server flags with `rtp_at_least_100` marked. The page computes no return: the figures are the server's.

import { html } from "../../html.js";
import { format, gettext } from "../../i18n.js";
import { styleSheet } from "../../nearby.js";
import { spotName } from "../play/words.js";
import { exampleFields, fieldsFrom, settingFrom } from "./multipliers.js";
import { $, api, emit, showOk, tableName } from "./ui.js";

export const settingsDialog = $("#settings-dialog");
const fieldset = $("#settings-mult"), body = $("#settings-mult-body"), switchOn = $("#settings-mult-on");
const spotsBox = $("#settings-spots"), draws = $("#settings-draws"), rowsBody = $("#settings-rows");
const fieldError = $("#settings-mult-error"), alertBox = $("#settings-alert");
let tableId = null, offered = [], saved = null;

function showSwitch() { fieldset.disabled = body.hidden = !switchOn.checked; }

// What an input holds, as text; a number input whose text is no number reads "" in the browser:
// "?" keeps it from passing for an empty field.
const typed = (input) => (input.validity.badInput ? "?" : input.value);

function drawRows(rows) {
  rowsBody.innerHTML = rows.map(([multiplier, weight], i) => {
    const n = i + 1;
    return html`<tr><td><input type="number" step="1" inputmode="numeric" value="${multiplier}" data-testid="settings-multiplier-${n}"
      aria-label="${format(gettext("Multiplier %(n)s"), { n })}"></td>
    <td><input type="number" step="1" inputmode="numeric" value="${weight}" data-testid="settings-weight-${n}"
      aria-label="${format(gettext("Weight %(n)s"), { n })}"></td>
    <td><button type="button" class="secondary remove" data-row="${i}" data-testid="settings-remove-${n}"
      aria-label="${format(gettext("Remove row %(n)s"), { n })}">${gettext("Remove")}</button></td></tr>`;
  }).join("");
}

function formState() {
  return {
    on: switchOn.checked, draws: typed(draws),
    spots: [...spotsBox.querySelectorAll("input:checked")].map((box) => box.value),
    rows: [...rowsBody.rows].map((tr) => [...tr.querySelectorAll("input")].map(typed)),
  };
}

function fill(fields) {
  switchOn.checked = fields.on;
  spotsBox.innerHTML = offered.map((spot) => html`<label><input type="checkbox" value="${spot}"
    data-testid="settings-spot-${spot}"${fields.spots.includes(spot) ? html` checked` : ""}> ${spotName(spot)}</label>`).join("");
  draws.value = fields.draws;
  drawRows(fields.rows);
  showSwitch();
}

function setFieldError(messages, inputs = []) {
  const text = [].concat(messages || []).join(" ");
  fieldError.textContent = text;
  fieldError.hidden = !text;
  if (text) fieldset.setAttribute("aria-invalid", "true"); else fieldset.removeAttribute("aria-invalid");
  for (const input of fieldset.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  for (const input of inputs) input.setAttribute("aria-invalid", "true");
}

function setAlert(text) { alertBox.textContent = text || ""; alertBox.hidden = !text; }

async function loadReturns() {
  const rows = await api("GET", `tables/${tableId}/odds/`);
  offered = rows.map((r) => r.spot);
  $("#settings-rtp-rows").innerHTML = rows.map((r) => html`<tr data-spot="${r.spot}" class="${r.rtp_at_least_100 ? "high" : ""}">
    <th scope="row">${spotName(r.spot)}</th>
    <td data-testid="settings-rtp-${r.spot}">${r.rtp}%${r.rtp_at_least_100 ? html` <strong class="flag">⚠ ${gettext("100 or more per 100 staked")}</strong>` : ""}</td>
    <td>${r.rtp_without_multipliers == null ? "—" : r.rtp_without_multipliers + "%"}</td></tr>`).join("");
  const high = rows.filter((r) => r.rtp_at_least_100);
  const warning = $("#settings-rtp-warning");
  warning.hidden = !high.length;
  warning.textContent = high.length ? "⚠ " + format(gettext("These spots return 100 or more per 100 staked on average (allowed, e.g. at a play-chips table; check it is meant): %(spots)s."),
    { spots: high.map((r) => `${spotName(r.spot)} (${r.rtp}%)`).join(", ") }) : "";
}

/** Open the dialog for a table (main.js calls it when a tile's Settings is pressed). */
export async function openSettings(id) {
  tableId = id;
  setAlert(""); setFieldError(null);
  $("#settings-title").textContent = format(gettext("Table settings · %(table)s"), { table: tableName(id) });
  $("#settings-sub").textContent = gettext("Random multipliers, and what each spot returns.");
  offered = []; saved = null;
  fill(fieldsFrom(null));
  await styleSheet(settingsDialog.dataset.css);
  settingsDialog.showModal();
  switchOn.focus();
  try {
    saved = (await api("GET", `tables/${id}/`)).multipliers;
    await loadReturns();
    fill(fieldsFrom(saved));
  } catch (e) { setAlert(e.message); }
}

$("#settings-cancel").addEventListener("click", () => settingsDialog.close());
switchOn.addEventListener("change", () => { showSwitch(); setFieldError(null); });
$("#settings-preset").addEventListener("click", () => {
  fill(exampleFields(offered));
  setFieldError(null);
  (spotsBox.querySelector("input") || draws).focus();
});
$("#settings-add").addEventListener("click", () => {
  const state = formState();
  drawRows([...state.rows, ["", ""]]);
  rowsBody.rows[rowsBody.rows.length - 1].querySelector("input").focus();
});
rowsBody.addEventListener("click", (e) => {
  const remove = e.target.closest("button.remove");
  if (!remove) return;
  const rows = formState().rows, i = Number(remove.dataset.row);
  rows.splice(i, 1);
  drawRows(rows);
  setFieldError(null);
  // The focus stays where the row was: the next row's button, else the one above, else Add a row.
  const next = rowsBody.querySelectorAll("button.remove")[Math.min(i, rows.length - 1)];
  (next || $("#settings-add")).focus();
});

const ROW_ERRORS = {
  incomplete: (n) => format(gettext("Row %(n)s needs both a multiplier and a weight (or neither)."), { n }),
  number: (n) => format(gettext("Row %(n)s: type the multiplier and the weight as numbers."), { n }),
};

$("#settings-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  setAlert(""); setFieldError(null);
  const built = settingFrom(formState(), saved, offered);
  if (built.error === "draws") { setFieldError(gettext("Type the spots drawn each round as a number."), [draws]); draws.focus(); return; }
  if (built.error) {
    const inputs = [...rowsBody.rows[built.row].querySelectorAll("input")];
    setFieldError(ROW_ERRORS[built.error](built.row + 1), inputs);
    (inputs.find((input) => !input.value) || inputs[0]).focus();
    return;
  }
  const save = $("#settings-save");
  save.disabled = true;
  try {
    saved = (await api("PATCH", `tables/${tableId}/`, { multipliers: built.value })).multipliers;
    await loadReturns();
    fill(fieldsFrom(saved));
    showOk(format(gettext("Settings of %(table)s saved."), { table: tableName(tableId) }));
    emit("changed");
  } catch (err) {
    const fields = err.fields || {};
    if (fields.multipliers) { setFieldError(fields.multipliers); (body.querySelector("input:not([hidden])") || switchOn).focus(); }
    const rest = Object.entries(fields).filter(([k]) => k !== "multipliers").map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`);
    if (!fields.multipliers || rest.length) setAlert([err.message, ...rest].join(" "));
  } finally { save.disabled = false; }
});
