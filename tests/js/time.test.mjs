import { test } from "node:test";
import assert from "node:assert/strict";
import { when, ago, duration, fields } from "../../static/js/time.js";

test("a time today shows the clock and its zone; another day adds the date", () => {
  const now = new Date("2026-12-01T15:00:00Z");
  assert.equal(when("2026-12-01T14:03:27Z", { now, timeZone: "UTC" }), "14:03:27 UTC");
  assert.equal(when("2026-11-30T14:03:27Z", { now, timeZone: "UTC" }), "2026-11-30 14:03:27 UTC");
  assert.equal(when("2026-12-01T14:03:27Z", { now, timeZone: "Asia/Kolkata" }), "19:33:27 GMT+5:30");
  assert.equal(when("2026-12-01T00:00:05Z", { now, timeZone: "UTC" }), "00:00:05 UTC"); // never 24:00:05
  assert.equal(when(null), "");
});

test("a time reads the same in every language and without the browser's locale data", () => {
  // The modules ask Intl only for the time zone, in English: a browser without Nepali data writes
  // what one with it writes (Node's full ICU would write Devanagari digits for "ne").
  const seen = [];
  const real = Intl.DateTimeFormat;
  Intl.DateTimeFormat = function (locale, options) { seen.push(locale); return new real(locale, options); };
  try {
    assert.equal(when("2026-12-02T06:07:08Z", { now: new Date("2026-12-02T09:00:00Z"), timeZone: "Asia/Tokyo" }), "15:07:08 GMT+9");
    assert.deepEqual(fields(new Date("2026-12-02T06:07:08Z"), "Asia/Kathmandu"),
      { year: "2026", month: "12", day: "02", hour: "11", minute: "52", second: "08", zone: "GMT+5:45" });
  } finally {
    Intl.DateTimeFormat = real;
  }
  assert.deepEqual([...new Set(seen)], ["en-US"]);
});

test("ago in the page's words, numbers as the server writes them", () => {
  const now = Date.parse("2026-12-01T15:00:00Z");
  assert.equal(ago("2026-12-01T14:59:48Z", "en", now), "12 s ago");
  assert.equal(ago("2026-12-01T14:57:00Z", "en", now), "3 min ago");
  assert.equal(ago("2026-11-30T15:00:00Z", "ne", now), "24 h ago");
  globalThis.django = { gettext: (t) => ({ "%(n)s min ago": "%(n)s मिनेट अघि" })[t] ?? t };
  try {
    assert.equal(ago("2026-12-01T14:57:00Z", "ne", now), "3 मिनेट अघि");
  } finally {
    delete globalThis.django;
  }
});

test("duration", () => {
  assert.equal(duration(65), "1:05");
  assert.equal(duration(3725), "1:02:05");
});
