// The settings dialog's random multipliers as fields (settings.js draws them), and back: pure, no
// page (unit tests: tests/js/supervisor_multipliers.test.mjs). The same meaning as the admin's table
// form (tables/forms.py): a switch, the spots ticked, the number drawn, rows of multiplier and weight.
// Whether a setting makes a table is the server's to say (engine/multipliers.py): the only thing
// checked here is that a row has both of its numbers, or neither.

/** The fields of a `multipliers` setting (null: switched off). Numbers as the inputs hold them, text. */
export function fieldsFrom(setting) {
  if (!setting) return { on: false, spots: [], draws: "1", rows: [["", ""]] };
  const rows = (setting.values || []).map(([multiplier, weight]) => [String(multiplier ?? ""), String(weight ?? "")]);
  return { on: true, spots: [...(setting.spots || [])], draws: String(setting.draws ?? 1), rows: rows.length ? rows : [["", ""]] };
}

/** An example to edit: the card count boxes offered here (else the side bets, else every spot), one
 *  drawn a round, x2, x3, x5 or x10 by weights 70, 20, 8 and 2 (the "Super" tables' setting). */
export function exampleFields(offered) {
  const boxes = offered.filter((s) => s.startsWith("count_"));
  const sides = offered.filter((s) => s !== "andar" && s !== "bahar");
  const spots = boxes.length ? boxes : sides.length ? sides : [...offered];
  return { on: true, spots, draws: "1", rows: [["2", "70"], ["3", "20"], ["5", "8"], ["10", "2"]] };
}

// A number as typed: the number when it is one (the server says whether it is whole and in range),
// NaN when it is not.
const number = (text) => (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : NaN);

/** What saving the fields sends as `multipliers`: {value} (null when switched off), or {error, row}
 *  (row counted from 0) for a row with only one of its numbers ("incomplete") or one that is not a
 *  number ("number"), or {error: "draws"} for a number drawn that is not a number (empty: 1). `state`: {on, spots (ticked), draws, rows: [[multiplier, weight], ...]} as text;
 *  `previous`: the setting as saved; `offered`: the table's spots in display order. The spots of the
 *  previous setting keep their order (the draw's order), newly ticked ones follow in display order;
 *  rows with both numbers empty are left out. */
export function settingFrom(state, previous, offered) {
  if (!state.on) return { value: null };
  const rows = (state.rows || []).map((pair) => pair.map((t) => String(t ?? "").trim()));
  for (const [i, [multiplier, weight]] of rows.entries()) {
    if (!multiplier !== !weight) return { error: "incomplete", row: i };
    if (multiplier && (Number.isNaN(number(multiplier)) || Number.isNaN(number(weight)))) return { error: "number", row: i };
  }
  const ticked = new Set(state.spots || []);
  const spots = ((previous && previous.spots) || []).filter((s) => ticked.has(s));
  for (const s of [...offered, ...ticked]) if (ticked.has(s) && !spots.includes(s)) spots.push(s);
  const draws = String(state.draws ?? "").trim();
  if (draws && Number.isNaN(number(draws))) return { error: "draws" };
  return {
    value: {
      spots,
      draws: draws ? number(draws) : 1,
      values: rows.filter(([multiplier]) => multiplier).map(([multiplier, weight]) => [number(multiplier), number(weight)]),
    },
  };
}
