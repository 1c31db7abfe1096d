import { test } from "node:test";
import assert from "node:assert/strict";
import { cents, decimal, money, sum } from "../../static/js/money.js";

test("cents reads the API's decimals exactly", () => {
  assert.equal(cents("12.5"), 1250n);
  assert.equal(cents("0.10"), 10n);
  assert.equal(cents("-25"), -2500n);
  assert.equal(cents("-0"), 0n);
  assert.equal(cents("12345678901234567.89"), 1234567890123456789n); // beyond a float's 2^53
  for (const bad of ["", "1.234", "abc", "1e3", null, undefined, "1,000"]) assert.equal(cents(bad), null, String(bad));
});

test("decimal writes what the API accepts", () => {
  assert.equal(decimal(1250n), "12.50");
  assert.equal(decimal(1200n), "12");
  assert.equal(decimal(-5n), "-0.05");
  assert.equal(decimal(cents("0.1") + cents("0.2")), "0.30"); // 0.1 + 0.2, exactly
});

test("money groups digits by language and keeps every cent", () => {
  assert.equal(money("1234567.5", "en"), "1,234,567.50");
  assert.equal(money("1234567", "hi"), "12,34,567"); // lakh grouping
  assert.equal(money(2500n, "en"), "25");
  assert.equal(money("0.05", "en"), "0.05");
  assert.equal(money("12345678901234567.89", "en"), "12,345,678,901,234,567.89");
  assert.equal(money("x", "en"), "");
});

test("a signed sum says gain or loss", () => {
  assert.equal(money(2000n, "en", { signed: true }), "+20");
  assert.equal(money(-2500n, "en", { signed: true }), "-25");
  assert.equal(money(0n, "en", { signed: true }), "0");
});

test("sum adds strings and BigInts without floats", () => {
  assert.equal(sum(["0.10", "0.20", 5n]), 35n);
  assert.equal(sum([]), 0n);
});
