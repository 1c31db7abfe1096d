// The supervisor console's words and the small pure helpers its views share (unit-tested in
// tests/js/supervisor.test.mjs). No game rule: what a spot pays, who won and what a round could
// cost the house all come from the server.

import { format, gettext, pgettext } from "../../i18n.js";

const KINDS = {
  misread: () => gettext("Misread card"), wrong_side: () => gettext("Wrong side"),
  procedure: () => gettext("Procedure"), equipment: () => gettext("Equipment"),
  stream: () => gettext("Stream outage"), settlement: () => gettext("Settlement"), other: () => gettext("Other"),
};
/** An incident's kind for people: "equipment" -> "Equipment". */
export function kindName(kind) {
  return KINDS[kind] ? KINDS[kind]() : String(kind ?? "");
}

const STATUSES = {
  betting: () => pgettext("round status", "betting"), dealing: () => pgettext("round status", "dealing"),
  paused: () => pgettext("round status", "paused"), finished: () => pgettext("round status", "finished"),
  settled: () => pgettext("round status", "settled"), voided: () => pgettext("round status", "voided"),
  open: () => pgettext("incident status", "open"), resolved: () => pgettext("incident status", "resolved"),
  idle: () => pgettext("round status", "no round"),
};
/** A round's or an incident's status for people. */
export function statusName(status) {
  return STATUSES[status] ? STATUSES[status]() : String(status ?? "");
}

const SIDES = { andar: () => pgettext("side", "Andar"), bahar: () => pgettext("side", "Bahar") };
export function sideName(side) {
  return SIDES[side] ? SIDES[side]() : String(side ?? "");
}

const SPOTS = {
  andar: () => pgettext("side", "Andar"), bahar: () => pgettext("side", "Bahar"),
  first_andar: () => gettext("First Andar"), first_bahar: () => gettext("First Bahar"), first_three: () => gettext("First 3"),
};
/** A betting spot for people: "count_6_10" -> "Card count 6–10". */
export function spotName(spot) {
  const m = /^count_(\d+)_(\d+)$/.exec(spot);
  if (m) return format(gettext("Card count %(lo)s–%(hi)s"), { lo: m[1], hi: m[2] });
  return SPOTS[spot] ? SPOTS[spot]() : String(spot ?? "");
}

/** An empty value in an audit event: nothing to show. */
function empty(v) {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0)
    || (typeof v === "object" && !Array.isArray(v) && Object.keys(v).every((k) => empty(v[k])));
}

/**
 * An audit event's data without its empty keys, nested objects flattened one level down:
 * {settings: {match: null, mode: "classic"}, after: null} -> [["settings", [["mode", "classic"]]]].
 */
export function auditPairs(data) {
  const pairs = [];
  for (const [key, value] of Object.entries(data || {})) {
    if (empty(value)) continue;
    if (value && typeof value === "object" && !Array.isArray(value)) pairs.push([key, auditPairs(value)]);
    else pairs.push([key, value]);
  }
  return pairs;
}

/** Every open incident of the floor, oldest first (the one waiting longest is number 1). */
export function openIncidents(tables) {
  const all = [];
  for (const t of tables || []) for (const i of t.incidents || []) all.push({ ...i, table: t.id, tableName: t.name });
  return all.sort((a, b) => a.id - b.id);
}

/** "1:05" for a betting clock or a silence, from milliseconds. */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
