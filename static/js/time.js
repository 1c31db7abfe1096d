// Times for people, with the time zone shown (the studio's clocks and a camera recording are matched
// by them), written the same in every language and every browser: a 24-hour clock, the date as
// 2026-12-01, Latin digits, as the server writes an instant (the round page). The browser's Intl
// only moves an instant into a time zone and names the zone, in English, whose data every browser
// has: no month name or "PM" comes from locale data a browser may lack (Debian's Chromium has none
// for Nepali). "ago" is in the page's words (i18n.js).

import { format, gettext } from "./i18n.js";
import { number } from "./numbers.js";

const FIELDS = {
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
  hourCycle: "h23", numberingSystem: "latn", timeZoneName: "short",
};
const formats = new Map();

/** An instant's fields in a time zone (the browser's by default): {year, month, day, hour, minute, second, zone}. */
export function fields(date, timeZone) {
  const key = timeZone || "";
  if (!formats.has(key)) formats.set(key, new Intl.DateTimeFormat("en-US", { ...FIELDS, timeZone }));
  const out = {};
  for (const part of formats.get(key).formatToParts(date)) out[part.type] = part.value;
  return { year: out.year, month: out.month, day: out.day, hour: out.hour, minute: out.minute, second: out.second,
           zone: out.timeZoneName };
}

/** "14:03:27 UTC" today, "2026-11-30 14:03:27 UTC" another day (in the browser's time zone, or `timeZone`). */
export function when(iso, { now = new Date(), timeZone } = {}) {
  if (!iso) return "";
  const t = fields(new Date(iso), timeZone), today = fields(now, timeZone);
  const clock = `${t.hour}:${t.minute}:${t.second} ${t.zone}`;
  const day = `${t.year}-${t.month}-${t.day}`;
  return day === `${today.year}-${today.month}-${today.day}` ? clock : `${day} ${clock}`;
}

/** "12 s ago", "3 min ago", "2 h ago", in the page's language. */
export function ago(iso, locale, now = Date.now()) {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (s < 60) return format(gettext("%(n)s s ago"), { n: number(s, locale) });
  if (s < 3600) return format(gettext("%(n)s min ago"), { n: number(Math.floor(s / 60), locale) });
  return format(gettext("%(n)s h ago"), { n: number(Math.floor(s / 3600), locale) });
}

/** "1:05" for 65 s, the length of a shift or a silence. */
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + ":" + String(r).padStart(2, "0");
}
