// What every part of the supervisor console shares: the API with the page's token, the refusal
// banner, and a bus on which a part says that something changed (the floor and the history then
// refresh) or asks for an incident to be opened.

import { client, pageToken } from "../../api.js";
import { format, gettext } from "../../i18n.js";

export const api = client({ token: pageToken("sv-token") });
export const $ = (sel, root = document) => root.querySelector(sel);

/** "changed": an action went through; "open-incident" (detail: id): show that incident. */
export const bus = new EventTarget();
export function emit(name, detail) { bus.dispatchEvent(new CustomEvent(name, { detail })); }
export function on(name, fn) { bus.addEventListener(name, (e) => fn(e.detail)); }

/** The floor as last read: {tables: [...]} (floor.js writes it). */
export const state = { tables: [], currentIncident: null };
export function tableName(id) {
  const t = state.tables.find((x) => x.id === id);
  return t ? t.name : format(gettext("Table %(id)s"), { id });
}

const toast = $("#alert"), toastText = $("#alert-text");
let toastTimer = null;
function showToast(msg, kind) {
  toastText.textContent = msg;
  toast.dataset.kind = kind;
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.hidden = true; }, kind === "ok" ? 5000 : 12000);
}
/** Every refusal is shown as the API words it, with its field errors. */
export function showError(err) {
  let msg = err && err.message ? err.message : String(err);
  const extra = err && err.fields ? Object.entries(err.fields).filter(([k]) => !msg.includes(k))
    .map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`) : [];
  if (extra.length) msg += " (" + extra.join("; ") + ")";
  showToast(msg, "error");
}
export function showOk(msg) { showToast(msg, "ok"); }
export function hideToast() { toast.hidden = true; }
$("#alert-close").addEventListener("click", hideToast);
