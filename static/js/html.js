// Text into HTML: the one escaper of the pages (all five characters HTML gives a meaning to).

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** A tagged template that escapes every interpolated value: html`<b>${name}</b>`. Values made by
 *  html`` itself (or raw()) are kept as they are, so fragments nest. Arrays are joined. */
export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((v, i) => { out += piece(v) + strings[i + 1]; });
  return new Safe(out);
}

export function raw(text) { return new Safe(String(text)); }

class Safe {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

function piece(v) {
  if (v instanceof Safe) return v.text;
  if (Array.isArray(v)) return v.map(piece).join("");
  if (v === null || v === undefined || v === false) return "";
  return esc(v);
}
