import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FORMATS, formatOf, number } from "../../static/js/numbers.js";
import { money } from "../../static/js/money.js";

// The server's own numbers in each offered language (tests/studio/test_formats.py checks them
// against Django): the modules must write the same.
const TABLE = JSON.parse(readFileSync(new URL("./number_formats.json", import.meta.url), "utf8"));
const LANGS = Object.keys(TABLE.rows[0]).filter((k) => k !== "value" && k !== "format");
const WRITE = {
  "-2g": (v, lang) => money(v, lang),
  "2g": (v, lang) => number(v, lang, { min: 2, max: 2 }),
  "0g": (v, lang) => number(v, lang, { max: 0 }),
};

function table() {
  const wrong = [];
  for (const row of TABLE.rows) {
    for (const lang of LANGS) {
      const got = WRITE[row.format](row.value, lang);
      if (got !== row[lang]) wrong.push(`${row.value} (${row.format}, ${lang}): ${got} where the server writes ${row[lang]}`);
    }
  }
  return wrong;
}

test("every offered language has its format here", () => {
  assert.deepEqual(Object.keys(FORMATS).sort(), [...LANGS].sort());
});

test("numbers and money are written as the server writes them, in every language", () => {
  assert.deepEqual(table(), []);
});

test("the same without any Intl locale data (Debian's Chromium has none for Nepali)", () => {
  const intl = globalThis.Intl;
  globalThis.Intl = undefined; // whatever the browser's Intl knows, the modules do not ask it
  try {
    assert.deepEqual(table(), []);
  } finally {
    globalThis.Intl = intl;
  }
});

test("Hindi and Nepali group by lakh and crore; Vietnamese with dots, a decimal comma", () => {
  assert.equal(money("1235467.50", "ne"), "12,35,467.50");
  assert.equal(money("1235467.50", "hi-IN"), "12,35,467.50");
  assert.equal(money("10000000", "ne"), "1,00,00,000");
  assert.equal(money("1235467.50", "vi"), "1.235.467,50");
  assert.equal(money("1235467.50", "fr"), "1,235,467.50"); // not offered: English, as the server falls back
  assert.equal(formatOf("NE_np"), FORMATS.ne);
});

test("number rounds half away from zero, keeps the decimals asked for and reads Numbers as written", () => {
  assert.equal(number("0.90", "en", { max: 4 }), "0.9");
  assert.equal(number("0.91666", "en", { max: 4 }), "0.9167");
  assert.equal(number("-2.675", "en", { min: 2, max: 2 }), "-2.68");
  assert.equal(number("-0.004", "en", { min: 2, max: 2 }), "0.00");
  assert.equal(number(1.005, "en", { min: 2, max: 2 }), "1.01"); // the Number's shortest form, 1.005
  assert.equal(number(1e21, "hi", { max: 0 }), "1,00,00,00,00,00,00,00,00,00,000");
  assert.equal(number(1.5e-7, "en", { max: 8 }), "0.00000015");
  assert.equal(number(12n, "en"), "12");
  assert.equal(number("12", "en", { signed: true }), "+12");
  assert.equal(number("0", "en", { signed: true }), "0");
  for (const bad of ["", "abc", "1,000", null, undefined, NaN, Infinity, "."]) assert.equal(number(bad, "en"), "", String(bad));
});
