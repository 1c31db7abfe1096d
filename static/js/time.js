// Times for people: in the reader's language, with the time zone shown (the studio's clocks and
// a camera recording are matched by them).

const formats = new Map();
function fmt(locale, opts) {
  const key = locale + JSON.stringify(opts);
  if (!formats.has(key)) formats.set(key, new Intl.DateTimeFormat(locale || undefined, opts));
  return formats.get(key);
}

/** "14:03:27 UTC" today, "1 Dec 2026, 14:03:27 UTC" another day (in the browser's time zone). */
export function when(iso, locale, { now = new Date(), timeZone } = {}) {
  if (!iso) return "";
  const d = new Date(iso);
  const sameDay = fmt(locale, { dateStyle: "short", timeZone }).format(d) === fmt(locale, { dateStyle: "short", timeZone }).format(now);
  const opts = { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short", timeZone };
  return fmt(locale, sameDay ? opts : { ...opts, year: "numeric", month: "short", day: "numeric" }).format(d);
}

/** "12 s ago", "3 min ago" in the reader's language. */
export function ago(iso, locale, now = Date.now()) {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  const rtf = new Intl.RelativeTimeFormat(locale || undefined, { numeric: "always", style: "short" });
  if (s < 60) return rtf.format(-s, "second");
  if (s < 3600) return rtf.format(-Math.floor(s / 60), "minute");
  return rtf.format(-Math.floor(s / 3600), "hour");
}

/** "1:05" for 65 s, the length of a shift or a silence. */
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + ":" + String(r).padStart(2, "0");
}
