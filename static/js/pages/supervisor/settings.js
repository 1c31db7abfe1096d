// The table settings dialog (templates/partials/supervisor_table_settings.html), opened from a tile
// (loaded by main.js the first time one is):
// the table's random multipliers as JSON (GET and PATCH /api/tables/{id}/; a refusal's
// `fields.multipliers` shown at the field, anything else in the dialog's alert), and every spot's
// exact return as the table is set now (GET /api/tables/{id}/odds/), a spot the server flags with
// `rtp_at_least_100` marked. The page computes no return: the figures are the server's.

import { html } from "../../html.js";
import { format, gettext } from "../../i18n.js";
import { spotName } from "../play/words.js";
import { $, api, emit, showOk, tableName } from "./ui.js";

export const settingsDialog = $("#settings-dialog");
const field = $("#settings-multipliers"), fieldError = $("#settings-mult-error"), alertBox = $("#settings-alert");
let tableId = null, offered = [];

/** The dialog's text of a `multipliers` setting: "" for none, else its JSON on a few lines. */
export function multipliersText(value) {
  if (value == null) return "";
  const values = (value.values || []).map((pair) => JSON.stringify(pair)).join(", ");
  return `{\n  "spots": ${JSON.stringify(value.spots || [])},\n  "draws": ${JSON.stringify(value.draws)},\n  "values": [${values}]\n}`;
}

/** What the field's text sends: null for an empty field, else its JSON ({error} when it is not JSON). */
export function multipliersValue(text) {
  const t = String(text || "").trim();
  if (!t || t === "null") return { value: null };
  try { return { value: JSON.parse(t) }; } catch (e) { return { error: e.message }; }
}

function setFieldError(messages) {
  const text = [].concat(messages || []).join(" ");
  fieldError.textContent = text;
  fieldError.hidden = !text;
  if (text) field.setAttribute("aria-invalid", "true"); else field.removeAttribute("aria-invalid");
}

function setAlert(text) { alertBox.textContent = text || ""; alertBox.hidden = !text; }

async function loadReturns() {
  const rows = await api("GET", `tables/${tableId}/odds/`);
  offered = rows.map((r) => r.spot);
  $("#settings-spots").textContent = format(gettext("Spots offered here: %(spots)s."), { spots: offered.join(", ") });
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
  field.value = "";
  settingsDialog.showModal();
  field.focus();
  try {
    const table = await api("GET", `tables/${id}/`);
    field.value = multipliersText(table.multipliers);
    await loadReturns();
  } catch (e) { setAlert(e.message); }
}

$("#settings-cancel").addEventListener("click", () => settingsDialog.close());
$("#settings-preset").addEventListener("click", () => {
  // An example to edit: the side bets offered here (else every spot), one of them drawn a round.
  const sides = offered.filter((s) => s !== "andar" && s !== "bahar");
  const spots = sides.length ? sides : offered;
  field.value = multipliersText({ spots, draws: Math.min(2, spots.length) || 1, values: [[2, 60], [3, 30], [5, 10]] });
  setFieldError(null);
  field.focus();
});
$("#settings-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  setAlert(""); setFieldError(null);
  const parsed = multipliersValue(field.value);
  if (parsed.error) { setFieldError(format(gettext("This is not JSON: %(error)s"), { error: parsed.error })); field.focus(); return; }
  const save = $("#settings-save");
  save.disabled = true;
  try {
    const table = await api("PATCH", `tables/${tableId}/`, { multipliers: parsed.value });
    field.value = multipliersText(table.multipliers);
    await loadReturns();
    showOk(format(gettext("Settings of %(table)s saved."), { table: tableName(tableId) }));
    emit("changed");
  } catch (err) {
    const fields = err.fields || {};
    if (fields.multipliers) { setFieldError(fields.multipliers); field.focus(); }
    const rest = Object.entries(fields).filter(([k]) => k !== "multipliers").map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`);
    if (!fields.multipliers || rest.length) setAlert([err.message, ...rest].join(" "));
  } finally { save.disabled = false; }
});
