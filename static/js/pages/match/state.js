// The match page's state, and the helpers its views share: who the reader is, each player's colour
// and avatar, cards written for the eye and for a screen reader, the betting clock.
import { cardName, parseCard } from "../../cards.js";
import { esc, html, raw } from "../../html.js";
import { format, gettext, locale, pgettext } from "../../i18n.js";
import { COLORS } from "./chart.js";

export const root = document.getElementById("match");
export const LOC = locale();
export const $ = (id) => document.getElementById(id);

export const S = {
  state: null, table: null, round: null, deadline: null, socket: null,
  slip: [], slipRound: null, proposal: [], proposalFor: null, chip: 5000n, busy: false, mine: null, result: null,
  counted: new Set(), closed: false, asked: 0, applied: 0, poll: null, toastTimer: null,
};

export const me = () => (S.state && S.state.me ? S.state.me.player : null);
export const colorOf = (name) => COLORS[Math.max(0, S.state ? S.state.players.findIndex((p) => p.player === name) : 0) % COLORS.length];
export const youOr = (name) => (name === me() ? pgettext("the reader", "you") : name);
export const nameYou = (name) => (name === me() ? format(gettext("%(name)s (you)"), { name }) : name);
export const YouOr = (name) => (name === me() ? pgettext("the reader, at the start of a sentence", "You") : name);
export const shortCard = (code) => { const c = parseCard(code); return c ? c.rank + c.symbol : String(code); };
/** A translated sentence with values put in as HTML: the sentence escaped, each value escaped unless made by html``. */
export const fill = (text, values) => raw(format(esc(text), Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(html`${v}`)]))));
/** A card written short for the eye ("K♦") and in words for a screen reader. */
export const cardText = (code) => html`<span aria-hidden="true">${shortCard(code)}</span><span class="sr-only">${cardName(code)}</span>`;
export const avatar = (name, cls = "av") => html`<span class="${cls}" style="--c:${colorOf(name)}" aria-hidden="true">${name[0].toUpperCase()}</span>`;
export function setHTML(el, text) {
  const s = String(text);
  if (el.dataset.html !== s) { el.innerHTML = s; el.dataset.html = s; }
}
export const bettingOpen = () => S.round && S.round.status === "betting" && S.deadline !== null && S.deadline > performance.now();
