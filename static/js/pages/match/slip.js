// The round's bets as a player builds them before tapping Bet: chips put on spots, nothing sent.
// The limits come from the server (the round's or the table's settings and the player's chips);
// the server checks every bet again when the slip is sent.

import { cents } from "../../money.js";

const MAIN = new Set(["andar", "bahar"]);

/** The table's limits from a round's `settings` or a snapshot's `table`, as BigInt hundredths. */
export function limits(settings = {}) {
  return {
    min: cents(settings.min_bet ?? "0") ?? 0n,
    max: cents(settings.max_bet ?? "0") ?? 0n,
    both: Boolean(settings.allow_both_sides),
  };
}

export function total(slip) {
  return slip.reduce((t, b) => t + b.amount, 0n);
}

/**
 * One chip of `chip` (BigInt hundredths) on `spot`. Returns {slip, added, removed, cap}: the new
 * slip (the old one is left as it was), how much went on, the other main side's spot when the
 * table allows one main side a round and it came off, and the most this round may hold.
 */
export function addChip(slip, spot, chip, { max, both }, have) {
  let next = slip.map((b) => ({ ...b }));
  let removed = null;
  if (!both && MAIN.has(spot)) {
    const other = next.find((b) => MAIN.has(b.spot) && b.spot !== spot);
    if (other) { removed = other.spot; next = next.filter((b) => b !== other); }
  }
  const cap = max < have ? max : have;
  const room = cap - total(next);
  const added = chip < room ? chip : room > 0n ? room : 0n;
  if (added > 0n) {
    const row = next.find((b) => b.spot === spot);
    if (row) row.amount += added; else next.push({ spot, amount: added });
  }
  return { slip: added > 0n || removed ? next : slip, added, removed, cap };
}

export function sameBets(a, b) {
  return a.length === b.length && a.every((x, i) => x.spot === b[i].spot && x.amount === b[i].amount);
}

/** Stakes by spot, for the chips drawn on the board. */
export function stakes(bets) {
  const out = {};
  for (const b of bets) out[b.spot] = (out[b.spot] || 0n) + b.amount;
  return out;
}
