// A refusal in the page's language: the API's stable code, with the figures it sends (studio/schema.py,
// the Error component), said in this page's words and number format. A code the pages have no words
// for keeps the API's own sentence.

import { format, gettext, locale, pgettext } from "./i18n.js";
import { money } from "./money.js";

const SIDES = { andar: () => pgettext("side", "Andar"), bahar: () => pgettext("side", "Bahar") };

const SAID = {
  over_max_bet: (b, lang) => format(gettext("At most %(max)s a round at this table (you would stake %(total)s)."),
    { max: money(b.max_bet, lang), total: money(b.would_stake, lang) }),
  under_min_bet: (b, lang) => format(gettext("At least %(min)s a round at this table (or everything you have left)."),
    { min: money(b.min_bet, lang) }),
  insufficient_funds: (b, lang) => format(gettext("Not enough chips for this bet: your balance is %(balance)s."),
    { balance: money(b.balance, lang) }),
  chip_unit: (b, lang) => format(gettext("The amount must be a multiple of the chip unit (%(unit)s)."),
    { unit: money(b.chip_unit, lang) }),
  both_sides: (b) => format(gettext("You already bet on %(side)s: one main side a round at this table."),
    { side: (SIDES[b.side] || (() => b.side))() }),
  spot_not_offered: () => gettext("This table does not offer that bet."),
  betting_closed: (b) => (b.status === "paused" ? gettext("The round is paused; bets wait until it resumes.")
    : gettext("Betting is closed for this round.")),
  match_table: () => gettext("At a match table, bets go through the match's Bet button, and once in they stay for the round."),
  operator_busy: () => gettext("Your casino's wallet is answering slowly. Try again in a moment."),
  busy: () => gettext("The studio is busy right now. Try again in a moment."),
};

/** The page's words for a refusal (the API's JSON body), or null when the pages have none for its code. */
export function refusalText(body, lang = locale()) {
  const say = body && SAID[body.code];
  return say ? say(body, lang) : null;
}
