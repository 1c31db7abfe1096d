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

/** ["alice", "bob", "carol"] -> "alice, bob and carol", in the page's words (not Intl's ListFormat,
 * whose words a browser may lack: Debian's Chromium lists Nepali names with "and"). */
export function names(list) {
  if (list.length < 2) return list.join("");
  const all = list.slice(0, -1).join(pgettext("between names in a list", ", "));
  return format(gettext("%(names)s and %(last)s"), { names: all, last: list[list.length - 1] });
}

/** English's ordinal forms (1st, 2nd, 3rd, 11th...): the other languages write one form for every rank. */
function ordinal(n) {
  const ten = n % 10, hundred = n % 100;
  if (ten === 1 && hundred !== 11) return "one";
  if (ten === 2 && hundred !== 12) return "two";
  if (ten === 3 && hundred !== 13) return "few";
  return "other";
}

/** 1 -> "1st place". */
export function place(rank) {
  const texts = {
    one: () => gettext("%(n)sst place"), two: () => gettext("%(n)snd place"),
    few: () => gettext("%(n)srd place"), other: () => gettext("%(n)sth place"),
  };
  return format(texts[ordinal(rank)](), { n: rank });
}
