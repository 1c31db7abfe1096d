import { test } from "node:test";
import assert from "node:assert/strict";
import { refusalText } from "../../static/js/refusals.js";
import { ApiError } from "../../static/js/api.js";

const OVER = { code: "over_max_bet", message: "At most 500.00 a round at this table (you would stake 1000.00).",
  fields: { amount: ["At most 500.00 a round at this table (you would stake 1000.00)."] }, max_bet: "500000.00", would_stake: "1000000.00" };

test("a refusal is said with the page's number format, not the API's raw decimals", () => {
  assert.equal(refusalText(OVER, "en"), "At most 500,000 a round at this table (you would stake 1,000,000).");
  assert.equal(refusalText(OVER, "hi"), "At most 5,00,000 a round at this table (you would stake 10,00,000).");
  assert.equal(refusalText({ code: "insufficient_funds", balance: "12.50" }, "en"), "Not enough chips for this bet: your balance is 12.50.");
  assert.equal(refusalText({ code: "betting_closed", status: "paused" }, "en"), "The round is paused; bets wait until it resumes.");
  assert.equal(refusalText({ code: "no_such_code", message: "As the API says." }, "en"), null);
});

test("in the page's language, from Django's catalogue", () => {
  globalThis.django = {
    gettext: (s) => (s.startsWith("You already bet on") ? "あなたはすでに%(side)sに賭けています。" : s),
    ngettext: (s, p, n) => (n === 1 ? s : p),
    pgettext: (c, s) => (c === "side" && s === "Bahar" ? "バハール" : s),
  };
  try {
    assert.equal(refusalText({ code: "both_sides", side: "bahar" }, "ja"), "あなたはすでにバハールに賭けています。");
  } finally {
    delete globalThis.django;
  }
});

test("an ApiError of a known code says it and drops the API's English field messages", () => {
  const known = new ApiError(400, OVER);
  assert.equal(known.code, "over_max_bet");
  assert.match(known.message, /^At most 500,000/);
  assert.deepEqual(known.fields, {});
  const unknown = new ApiError(400, { code: "invalid", message: "Bad input.", fields: { spot: ["This field is required."] } });
  assert.equal(unknown.message, "Bad input.");
  assert.deepEqual(unknown.fields, { spot: ["This field is required."] });
});
