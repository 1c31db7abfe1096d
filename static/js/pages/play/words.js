// The player page's words: spot and side names, what is announced to a screen reader, the notices
// on the felt. Every literal goes through gettext (makemessages finds them); values go in with format().

import { cardName, parseCard } from "../../cards.js";
import { format, gettext, ngettext, pgettext } from "../../i18n.js";

const SPOT_NAMES = {
  andar: () => pgettext("side", "Andar"), bahar: () => pgettext("side", "Bahar"),
  first_andar: () => gettext("1st Andar"), first_bahar: () => gettext("1st Bahar"), first_three: () => gettext("First 3"),
};

/** "Andar", "1st Bahar", "6–10 cards": a spot's name for people (the API's spot code in, a word out). */
export function spotName(spot) {
  if (SPOT_NAMES[spot]) return SPOT_NAMES[spot]();
  const m = /^count_(\d+)_(\d+)$/.exec(spot);
  if (m) return format(gettext("%(low)s–%(high)s cards"), { low: m[1], high: m[2] });
  return spot;
}

/** The short label on a count box ("6–10"); the word "cards" goes beside it. */
export function countRange(spot) {
  const m = /^count_(\d+)_(\d+)$/.exec(spot);
  return m ? `${m[1]}–${m[2]}` : null;
}

export function sideName(side) {
  return side === "andar" ? pgettext("side", "Andar") : side === "bahar" ? pgettext("side", "Bahar") : "";
}

/** "K♠": a card's corner, for the round's line. */
export function shortCard(code) {
  const c = parseCard(code);
  return c ? c.rank + c.symbol : "";
}

export function winsLine(winner, n) {
  return winner === "andar" ? format(gettext("Andar wins on card %(n)s"), { n }) : format(gettext("Bahar wins on card %(n)s"), { n });
}

export function nextCardLine(side) {
  return side === "andar" ? gettext("Next card to Andar") : side === "bahar" ? gettext("Next card to Bahar") : "";
}

export function cardsCount(n) {
  return n ? ngettext("%(n)s card", "%(n)s cards", n) : "";
}

/** "×7": a multiplier as the felt shows it. */
export function timesText(n) {
  return format(pgettext("a multiplier", "×%(n)s"), { n });
}

/** "Multipliers this round: 6–10 cards ×7, Andar ×3.": the round's drawn multipliers, said. */
export function multipliersLine(list) {
  if (!list || !list.length) return "";
  const items = list.map((m) => format(gettext("%(spot)s %(times)s"), { spot: spotName(m.spot), times: timesText(m.multiplier) }));
  return format(gettext("Multipliers this round: %(list)s."), { list: items.join(pgettext("between names in a list", ", ")) });
}

/** What the polite live region says for an event (applyEvent's `say`). */
export function spoken(say) {
  if (!say) return "";
  switch (say.key) {
    case "opened": return format(gettext("New round, joker %(card)s. Place your bets."), { card: cardName(say.joker) });
    case "closed": return [gettext("No more bets."), multipliersLine(say.multipliers)].filter(Boolean).join(" ");
    case "card": return say.side === "andar"
      ? format(gettext("Card %(n)s: %(card)s to Andar."), { n: say.position, card: cardName(say.card) })
      : format(gettext("Card %(n)s: %(card)s to Bahar."), { n: say.position, card: cardName(say.card) });
    case "finished": return winsLine(say.winner, say.cards) + ".";
    case "paused": return gettext("Round paused. Your bets are safe.");
    case "resumed": return gettext("The round goes on.");
    case "corrected": return correctionLine(say);
    case "voided": return voidLine(say.reason);
    default: return "";
  }
}

/** A supervisor's correction of a card, said on the felt. */
export function correctionLine({ action, position, before, after }) {
  if (action === "replace") {
    return format(gettext("Card %(n)s was corrected: %(before)s is now %(after)s."), { n: position, before: cardName(before), after: cardName(after) });
  }
  return format(gettext("Card %(n)s (%(before)s) was taken off the table."), { n: position, before: cardName(before) });
}

export function voidLine(reason) {
  return reason ? format(gettext("Round voided: %(reason)s. Every bet was refunded."), { reason }) : gettext("Round voided. Every bet was refunded.");
}
