// The settings dialog's random multipliers as fields and back (static/js/pages/supervisor/multipliers.js),
// with the admin's table form's meaning (tables/forms.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { exampleFields, fieldsFrom, settingFrom } from "../../static/js/pages/supervisor/multipliers.js";

const OFFERED = ["andar", "bahar", "first_three", "count_1_5", "count_6_10", "count_11_15"];
const SUPER = { spots: ["count_6_10", "first_three"], draws: 1, values: [[2, 70], [10, 2]] };

test("a setting's fields: switched on, its spots, draws and rows as text; none is switched off", () => {
  assert.deepEqual(fieldsFrom(SUPER), { on: true, spots: ["count_6_10", "first_three"], draws: "1", rows: [["2", "70"], ["10", "2"]] });
  assert.deepEqual(fieldsFrom(null), { on: false, spots: [], draws: "1", rows: [["", ""]] });
  assert.deepEqual(fieldsFrom(undefined).on, false);
});

test("the fields of a setting give the setting back", () => {
  assert.deepEqual(settingFrom(fieldsFrom(SUPER), SUPER, OFFERED), { value: SUPER });
});

test("switched off saves null, whatever the fields hold", () => {
  assert.deepEqual(settingFrom({ ...fieldsFrom(SUPER), on: false }, SUPER, OFFERED), { value: null });
  assert.deepEqual(settingFrom({ on: false, spots: [], draws: "", rows: [["7", ""]] }, null, OFFERED), { value: null });
});

test("the setting's spots keep their order; newly ticked ones follow in display order", () => {
  const state = { on: true, spots: ["count_1_5", "andar", "first_three", "count_6_10"], draws: "2", rows: [["3", "1"]] };
  assert.deepEqual(settingFrom(state, SUPER, OFFERED).value.spots, ["count_6_10", "first_three", "andar", "count_1_5"]);
  // Unticked spots of the setting go; a ticked spot the page does not list is kept, last.
  assert.deepEqual(settingFrom({ ...state, spots: ["first_three", "count_11_15"] }, SUPER, OFFERED).value.spots, ["first_three", "count_11_15"]);
  assert.deepEqual(settingFrom({ ...state, spots: ["bahar", "old_spot"] }, null, OFFERED).value.spots, ["bahar", "old_spot"]);
});

test("rows with both numbers empty are left out; a row with one of the two is refused, naming it", () => {
  const state = { on: true, spots: ["andar"], draws: "1", rows: [["", ""], ["5", "10"], [" ", ""], ["7", "1"]] };
  assert.deepEqual(settingFrom(state, null, OFFERED).value.values, [[5, 10], [7, 1]]);
  assert.deepEqual(settingFrom({ ...state, rows: [["5", "10"], ["3", ""]] }, null, OFFERED), { error: "incomplete", row: 1 });
  assert.deepEqual(settingFrom({ ...state, rows: [["", "4"]] }, null, OFFERED), { error: "incomplete", row: 0 });
  assert.deepEqual(settingFrom({ ...state, rows: [["5", "10"], ["x", "1"]] }, null, OFFERED), { error: "number", row: 1 });
  assert.deepEqual(settingFrom({ ...state, draws: "two" }, null, OFFERED), { error: "draws" });
});

test("no game rule in the browser: the server says what is out of range", () => {
  // Draws beyond the spots, a multiplier of 1, a fraction, no spot, no row: all sent as typed.
  const state = { on: true, spots: [], draws: "3", rows: [["1", "0"], ["2.5", "1"], ["", ""]] };
  assert.deepEqual(settingFrom(state, null, OFFERED), { value: { spots: [], draws: 3, values: [[1, 0], [2.5, 1]] } });
  assert.deepEqual(settingFrom({ on: true, spots: ["andar"], draws: "", rows: [] }, null, OFFERED),
    { value: { spots: ["andar"], draws: 1, values: [] } });  // draws left empty: one, as in the admin
});

test("the example: the card count boxes offered, one drawn a round, x2 to x10", () => {
  const example = exampleFields(OFFERED);
  assert.deepEqual(example, { on: true, spots: ["count_1_5", "count_6_10", "count_11_15"], draws: "1",
    rows: [["2", "70"], ["3", "20"], ["5", "8"], ["10", "2"]] });
  assert.deepEqual(settingFrom(example, null, OFFERED).value,
    { spots: ["count_1_5", "count_6_10", "count_11_15"], draws: 1, values: [[2, 70], [3, 20], [5, 8], [10, 2]] });
  assert.deepEqual(exampleFields(["andar", "bahar", "first_andar"]).spots, ["first_andar"]);  // no boxes: the side bets
  assert.deepEqual(exampleFields(["andar", "bahar"]).spots, ["andar", "bahar"]);  // none: every spot
});
