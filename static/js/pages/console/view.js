// The dealer console's words and phases: pure functions of the round the server returned, so that
// node --test reads them. No rule of the game here: the side of the next card, the winner and the
// totals are the server's; these functions only say them.

import { format, gettext, ngettext, pgettext, locale } from "../../i18n.js";
import { esc, html, raw } from "../../html.js";
import { parseCard } from "../../cards.js";
import { money } from "../../money.js";
import { number } from "../../numbers.js";
import { duration } from "../../time.js";

export const OPEN = ["betting", "dealing", "paused"];
export const ARROW = { andar: "▲", bahar: "▼" };  // Andar's row is above the joker, Bahar's below

const SIDES = { andar: () => pgettext("side", "Andar"), bahar: () => pgettext("side", "Bahar") };
const STATUSES = {
  betting: () => gettext("Betting open"), dealing: () => gettext("Dealing"), paused: () => gettext("Paused"),
  finished: () => gettext("Finished"), settled: () => gettext("Settled"), voided: () => gettext("Voided"),
};

/** "andar" -> "Andar" in the page's language; anything else as it is ("-" when absent). */
export function sideName(side) {
  return SIDES[side] ? SIDES[side]() : String(side ?? "-");
}

export function statusName(status) {
  return STATUSES[status] ? STATUSES[status]() : String(status ?? "");
}

/** "KD" -> "K♦" (the short form the dealer reads on the card). */
export function shortCard(code) {
  const c = parseCard(code);
  return c ? c.rank + c.symbol : String(code ?? "");
}

/** A plain number as the reader writes it ("0.90" -> "0.9"). */
export function plain(text) {
  return number(text, locale(), { max: 4 }) || String(text ?? "");
}

/**
 * Where the console is: "no-table", "loading", "joker" (the next scan is a joker), "betting",
 * "time-up" (the countdown ended, the server has not closed yet: the first card closes it),
 * "dealing", "paused", "voided" or "over".
 */
export function phase({ tableId, loading, round, awaitingJoker, bettingLeftMs }) {
  if (tableId === null || tableId === undefined) return "no-table";
  if (loading) return "loading";
  if (!round || awaitingJoker) return "joker";
  if (round.status === "betting") return bettingLeftMs > 0 ? "betting" : "time-up";
  if (["dealing", "paused", "voided"].includes(round.status)) return round.status;
  return "over";
}

/** A translated text with HTML put in: the text is escaped, html`` values are kept. */
function fill(text, values) {
  return raw(esc(text).replace(/%\((\w+)\)s/g, (m, name) => (name in values ? String(html`${values[name]}`) : m)));
}

const side = (s) => html`<span class="${s}">${sideName(s)}</span>`;

/** The line under the bar: the table's rules from the round's settings (or the table's seconds). */
export function rulesLine(round, tableSeconds) {
  if (!round) return tableSeconds ? format(gettext("Betting %(seconds)s s"), { seconds: tableSeconds }) : "";
  const s = round.settings || {};
  const mode = s.mode === "no_commission" ? gettext("No commission")
    : format(gettext("Classic · first side pays %(commission)s:1"), { commission: plain(s.commission) });
  const first = s.first_card === "joker_colour" ? gettext("by joker colour") : sideName(s.first_card);
  return format(gettext("%(mode)s · first card %(first)s · betting %(seconds)s s · %(currency)s %(min)s–%(max)s"), {
    mode, first, seconds: s.betting_seconds, currency: s.currency ?? "",
    min: money(s.min_bet, locale()), max: money(s.max_bet, locale()),
  });
}

/** The big words in the middle: {main: HTML, sub: text, totals: text}. `last` is the round shown
 *  before a new joker was asked for. */
export function stage(p, round, last) {
  switch (p) {
    case "no-table": return { main: html`${gettext("No table")}`, sub: gettext("A supervisor must create a table first.") };
    case "loading": return { main: html`${gettext("Loading…")}`, sub: "" };
    case "joker": return {
      main: html`${gettext("Scan the joker")}`,
      sub: last && !OPEN.includes(last.status) && last.winner
        ? format(gettext("Last round %(id)s: %(side)s won on card %(n)s."), { id: last.id, side: sideName(last.winner), n: last.cards_dealt })
        : gettext("It opens betting."),
    };
    case "betting": return {
      main: html`${gettext("Betting open")}`,
      sub: format(gettext("First card goes to %(side)s. Close betting early with the button or Ctrl+Enter."), { side: sideName(round.next_side) }),
    };
    case "time-up": return {
      main: html`${gettext("Betting time is up")}`,
      sub: format(gettext("Scan the first card: it goes to %(side)s."), { side: sideName(round.next_side) }),
    };
    case "dealing": return {
      main: html`<span class="arrow ${round.next_side}" aria-hidden="true">${ARROW[round.next_side] || ""}</span>${fill(gettext("Next: %(side)s"), { side: side(round.next_side) })}`,
      sub: format(gettext("Card %(n)s · a %(rank)s ends the round"), { n: round.cards_dealt + 1, rank: (parseCard(round.joker) || { rank: "?" }).rank }),
    };
    case "paused": return {
      main: html`${gettext("Round paused")}`,
      sub: format(gettext("A supervisor must resume it. Next card: %(side)s."), { side: sideName(round.next_side) }),
    };
    case "voided": return {
      main: html`${gettext("Round voided")}`,
      sub: gettext("Every bet was refunded. Scan the next joker to open a new round."),
    };
    default: {
      const match = round.cards.length ? round.cards[round.cards.length - 1].card : round.joker;
      const t = round.totals;
      return {
        main: fill(gettext("%(side)s wins"), { side: side(round.winner) }),
        sub: format(gettext("on card %(n)s: %(card)s matches the joker %(joker)s"), { n: round.cards_dealt, card: shortCard(match), joker: shortCard(round.joker) }),
        totals: t ? ngettext("Settled: %(n)s bet, staked %(staked)s, paid %(paid)s", "Settled: %(n)s bets, staked %(staked)s, paid %(paid)s",
          t.bets, { staked: money(t.staked, locale()), paid: money(t.paid, locale()) }) : gettext("Settling…"),
      };
    }
  }
}

/** The scan box's label and placeholder. */
export function prompt(p, round) {
  switch (p) {
    case "joker": return [gettext("Scan or type the joker"), gettext("joker, e.g. KS")];
    case "betting": return [gettext("Betting open · Ctrl+Enter closes betting"), gettext("countdown running")];
    case "time-up": case "dealing": return [format(gettext("Scan card %(n)s → %(side)s"), { n: round.cards_dealt + 1, side: sideName(round.next_side) }), gettext("next card, e.g. 7H")];
    case "paused": return [gettext("Paused · waiting for the supervisor"), ""];
    case "over": case "voided": return [gettext("Round over · scan the next joker"), gettext("joker, e.g. KS")];
    default: return [gettext("Card"), ""];
  }
}

/** What Enter on the empty box says instead of acting (a scanner's double send must not act). */
export function emptyEnterHint(p, round) {
  switch (p) {
    case "joker": return gettext("Scan or type the joker first (e.g. KS).");
    case "betting": case "time-up": return gettext("Enter on an empty box does not close betting: use Close betting or Ctrl+Enter.");
    case "dealing": return format(gettext("Scan the next card: it goes to %(side)s."), { side: sideName(round.next_side) });
    case "paused": return gettext("The round is paused.");
    case "over": case "voided": return gettext("Scan the next joker: it opens the next round.");
    default: return "";
  }
}

/** A scan the console could not send anywhere (no table to deal at): said in the alert, never dropped. */
export function lostScan(text) {
  return format(gettext("Not dealt: there is no table to deal at. %(text)s went nowhere."), { text });
}

/** The row's count: "1 card", "2 cards". */
export function cardCount(n) {
  return ngettext("%(n)s card", "%(n)s cards", n);
}

/** "Joker", "the next joker": whether a scan now opens a round (the server still decides). */
export function opensRound(p) {
  return p === "joker" || p === "over" || p === "voided";
}

/** A line of the scan log for an accepted scan: what the server did with it. */
export function scanDone(result) {
  if (result.opened) {
    return format(gettext("Joker %(joker)s: round %(id)s open"), { joker: shortCard(result.opened.joker), id: result.opened.id });
  }
  const d = result.dealt;
  const values = { n: d.position, card: shortCard(d.card), side: sideName(d.side) };
  return d.match ? format(gettext("Card %(n)s: %(card)s to %(side)s · match!"), values)
    : format(gettext("Card %(n)s: %(card)s to %(side)s."), values);
}

/** The shift's clock: "12:04 of 30:00" (elapsed against the table's shift length). */
export function shiftClock(seconds, minutes) {
  return format(gettext("%(elapsed)s of %(length)s"), { elapsed: duration(seconds), length: duration(minutes * 60) });
}
