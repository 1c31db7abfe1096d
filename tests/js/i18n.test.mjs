import { test } from "node:test";
import assert from "node:assert/strict";
import { gettext, ngettext, pgettext, format } from "../../static/js/i18n.js";

test("without a catalogue the English text is used, with plurals and values", () => {
  assert.equal(gettext("Live"), "Live");
  assert.equal(ngettext("%(n)s card", "%(n)s cards", 1), "1 card");
  assert.equal(ngettext("%(n)s card", "%(n)s cards", 2), "2 cards");
  assert.equal(format(gettext("Round %(id)s of %(x)s"), { id: 7 }), "Round 7 of %(x)s");
  assert.equal(pgettext("side", "Andar"), "Andar");
});

test("with Django's catalogue the translation is used", () => {
  globalThis.django = {
    gettext: (s) => ({ Live: "लाइव" }[s] || s),
    ngettext: (s, p, n) => (n === 1 ? "%(n)s पत्ता" : "%(n)s पत्ते"),
    pgettext: (c, s) => (c === "side" && s === "Andar" ? "अंदर" : s),
  };
  try {
    assert.equal(gettext("Live"), "लाइव");
    assert.equal(ngettext("%(n)s card", "%(n)s cards", 3), "3 पत्ते");
    assert.equal(pgettext("side", "Andar"), "अंदर");
  } finally {
    delete globalThis.django;
  }
});
