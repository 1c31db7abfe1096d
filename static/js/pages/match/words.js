// The match page's words: spots, bets, people and places, in the reader's language. Spot codes are
// the API's ("andar", "first_three", "count_6_10"); what they pay and whether they won is the
// server's to say.

import { format, gettext, pgettext } from "../../i18n.js";
import { money } from "../../money.js";

const SPOTS = {
  andar: () => pgettext("side", "Andar"),
  bahar: () => pgettext("side", "Bahar"),
  first_andar: () => gettext("1st Andar"),
  first_bahar: () => gettext("1st Bahar"),
  first_three: () => gettext("First 3"),
};
const COUNT = /^count_(\d+)_(\d+)$/;

/** "andar" -> "Andar" (the side, as the felt names it). */
export function sideName(side) {
  return SPOTS[side] && (side === "andar" || side === "bahar") ? SPOTS[side]() : String(side ?? "");
}

/** The range of cards of a card-count spot ("6–10"), or null for any other spot. */
export function countRange(spot) {
  const m = COUNT.exec(spot);
  return m ? (m[1] === m[2] ? m[1] : `${m[1]}–${m[2]}`) : null;
}

/** "count_6_10" -> "6–10 cards", "first_three" -> "First 3", "andar" -> "Andar". */
export function spotName(spot) {
  if (SPOTS[spot]) return SPOTS[spot]();
  const range = countRange(spot);
  return range ? format(gettext("%(range)s cards"), { range }) : String(spot);
}

/** [{spot, amount}] -> "50 on Bahar + 10 on 6–10 cards". */
export function listing(bets, loc) {
  return bets.map((b) => format(gettext("%(amount)s on %(spot)s"), { amount: money(b.amount, loc), spot: spotName(b.spot) }))
    .join(" + ");
}

/** ["alice", "bob", "carol"] -> "alice, bob and carol" (the language's own way of listing). */
export function names(list, loc) {
  try {
    return new Intl.ListFormat(loc || undefined, { type: "conjunction" }).format(list);
  } catch {
    return list.join(", ");
  }
}

/** 1 -> "1st place", in the language's ordinal form where Intl knows it (English here). */
export function place(rank, loc) {
  const rule = new Intl.PluralRules(loc || undefined, { type: "ordinal" }).select(rank);
  const texts = {
    one: () => gettext("%(n)sst place"), two: () => gettext("%(n)snd place"),
    few: () => gettext("%(n)srd place"), other: () => gettext("%(n)sth place"),
  };
  return format((texts[rule] || texts.other)(), { n: rank });
}
