// Cards as the API writes them ("KD", "10H", "AS"): their parts, their names for a screen reader
// and their face on the felt. No game rule lives here: which card wins is the server's to say.

import { format, gettext, pgettext } from "./i18n.js";
import { esc } from "./html.js";

export const SUIT_SYMBOLS = Object.freeze({ S: "♠", H: "♥", D: "♦", C: "♣" });
// Functions, not tables: each word is looked up in the page's language when it is needed, and
// every literal is where makemessages can find it.
const RANK_NAMES = {
  A: () => pgettext("card rank", "Ace"), K: () => pgettext("card rank", "King"),
  Q: () => pgettext("card rank", "Queen"), J: () => pgettext("card rank", "Jack"),
};
const SUIT_NAMES = {
  S: () => pgettext("card suit", "spades"), H: () => pgettext("card suit", "hearts"),
  D: () => pgettext("card suit", "diamonds"), C: () => pgettext("card suit", "clubs"),
};

/** "10H" -> {rank: "10", suit: "H", red: true, symbol: "♥"}; anything else -> null. */
export function parseCard(code) {
  const m = /^(A|K|Q|J|10|[2-9])([SHDC])$/i.exec(String(code ?? "").trim());
  if (!m) return null;
  const suit = m[2].toUpperCase();
  return { rank: m[1].toUpperCase(), suit, red: suit === "H" || suit === "D", symbol: SUIT_SYMBOLS[suit] };
}

/** The card's name, in the page's language: "King of diamonds", "10 of hearts". */
export function cardName(code) {
  const c = parseCard(code);
  if (!c) return gettext("no card");
  const rank = RANK_NAMES[c.rank] ? RANK_NAMES[c.rank]() : c.rank;
  return format(gettext("%(rank)s of %(suit)s"), { rank, suit: SUIT_NAMES[c.suit]() });
}

/** The card's face as HTML: a role="img" with its name, the corner and pip hidden from readers. */
export function cardHTML(code, { cls = "", pos = null, match = false } = {}) {
  const c = parseCard(code);
  if (!c) return `<div class="card none ${esc(cls)}" role="img" aria-label="${esc(gettext("no card"))}">?</div>`;
  const label = cardName(code) + (pos ? ", " + gettext("position") + " " + pos : "");
  return `<div class="card${c.red ? " red" : ""}${match ? " match" : ""} ${esc(cls)}" data-card="${esc(c.rank + c.suit)}" role="img" aria-label="${esc(label)}">`
    + `<span class="corner" aria-hidden="true">${esc(c.rank)}<i>${c.symbol}</i></span>`
    + `<span class="pip" aria-hidden="true">${c.symbol}</span>`
    + (pos ? `<span class="pos" aria-hidden="true">${esc(pos)}</span>` : "") + "</div>";
}
