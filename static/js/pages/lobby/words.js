// The lobby's words and small pieces of markup: a table's phase, its driver, its game and side bets,
// its limits, its road of results. Every literal goes through gettext (makemessages finds them);
// figures through numbers.js and money.js, in the page's language. Shared by the lobby page and the
// player page's table switcher.

import { format, gettext, ngettext, pgettext } from "../../i18n.js";
import { html } from "../../html.js";
import { money } from "../../money.js";
import { number } from "../../numbers.js";

const SIDE_BETS = {
  first_andar: () => gettext("1st Andar"), first_bahar: () => gettext("1st Bahar"),
  first_three: () => gettext("First 3"), card_count: () => gettext("Card count"),
};

export function driverName(driver) {
  return driver === "virtual" ? gettext("Virtual dealer") : driver === "match" ? gettext("With friends") : gettext("Live dealer");
}

export function modeName(mode) {
  return mode === "no_commission" ? gettext("No commission") : gettext("Classic");
}

/** The side bets offered, in the board's order (the server lists them alphabetically). */
export function sideBetNames(list) {
  const order = Object.keys(SIDE_BETS);
  const rank = (s) => (order.includes(s) ? order.indexOf(s) : order.length);
  return [...(list || [])].sort((a, b) => rank(a) - rank(b)).map((s) => (SIDE_BETS[s] ? SIDE_BETS[s]() : s));
}

/** "10–500 chips", "10–500 INR": the stakes a round, in the page's number format. */
export function limitsLine(row, loc) {
  const range = format(pgettext("a range of stakes", "%(min)s–%(max)s"), { min: money(row.min_bet, loc), max: money(row.max_bet, loc) });
  return row.currency === "CHIPS" ? format(gettext("%(range)s chips"), { range }) : `${range} ${row.currency}`;
}

/** "Up to ×10": a table with random multipliers, its highest. */
export function multiplierBadge(m, loc) {
  return m ? format(gettext("Multipliers up to ×%(n)s"), { n: number(m.highest, loc) }) : "";
}

export function stateName(state) {
  return state === "maintenance" ? gettext("Maintenance") : state === "closed" ? gettext("Closed") : "";
}

/** A row's phase (state.js's phaseOf) in words: the line under the table's name. */
export function phaseLine(p, loc) {
  switch (p.phase) {
    case "betting": return gettext("Place your bets");
    case "closing": return gettext("No more bets");
    case "dealing": return gettext("Dealing…");
    case "paused": return p.left
      ? format(gettext("Round paused: %(n)s s of betting left"), { n: number(p.left, loc) })
      : gettext("Round paused");
    case "voided": return gettext("Round voided");
    case "result": return p.winner === "andar"
      ? format(gettext("Andar wins on card %(n)s"), { n: number(p.cards, loc) })
      : format(gettext("Bahar wins on card %(n)s"), { n: number(p.cards, loc) });
    default: return gettext("Waiting for the first round");
  }
}

/** "12 s": the seconds left to bet. */
export function countdownText(left, loc) {
  return format(gettext("%(n)s s"), { n: number(left, loc) });
}

export function playersLine(n, loc) {
  return ngettext("%(n)s player", "%(n)s players", n, { n: number(n, loc) });
}

function resultSaid(r, loc) {
  return r.winner === "andar"
    ? format(gettext("Andar wins on card %(n)s"), { n: number(r.cards_dealt, loc) })
    : format(gettext("Bahar wins on card %(n)s"), { n: number(r.cards_dealt, loc) });
}

/** The small road: one bead a result, oldest first, A or B with the cards dealt (as the player page's beads). */
export function roadHTML(road, loc) {
  if (!road || !road.length) return html`<li class="none muted">${gettext("No results yet")}</li>`.toString();
  return road.map((r) => html`<li class="bead ${r.winner === "andar" ? "andar" : "bahar"}" title="${resultSaid(r, loc)}"><span class="sr-only">${
    resultSaid(r, loc)}</span><span aria-hidden="true">${r.winner === "andar" ? pgettext("Andar, one letter", "A") : pgettext("Bahar, one letter", "B")}<sub>${
    number(r.cards_dealt, loc)}</sub></span></li>`.toString()).join("");
}
