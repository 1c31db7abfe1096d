import { test } from "node:test";
import assert from "node:assert/strict";
import { when, ago, duration } from "../../static/js/time.js";

test("a time today shows the clock and its zone; another day adds the date", () => {
  const now = new Date("2026-12-01T15:00:00Z");
  assert.equal(when("2026-12-01T14:03:27Z", "en-GB", { now, timeZone: "UTC" }), "14:03:27 UTC");
  assert.match(when("2026-11-30T14:03:27Z", "en-GB", { now, timeZone: "UTC" }), /30 Nov 2026.*14:03:27 UTC/);
  assert.match(when("2026-12-01T14:03:27Z", "en-GB", { now, timeZone: "Asia/Kolkata" }), /19:33:27 (GMT\+5:30|IST)/);
  assert.equal(when(null, "en"), "");
});

test("ago and duration", () => {
  const now = Date.parse("2026-12-01T15:00:00Z");
  assert.match(ago("2026-12-01T14:59:48Z", "en", now), /12 sec/);
  assert.match(ago("2026-12-01T14:57:00Z", "en", now), /3 min/);
  assert.equal(duration(65), "1:05");
  assert.equal(duration(3725), "1:02:05");
});
