// "My history" on the player page (#my-history, players only): the rounds the player bet on, newest
// first, from GET /api/me/rounds/ (bets/history.py): each round's joker and cards in order, the
// player's bets with what came back (a won bet's multiplier too), the net; a voided round with its reason. "More" reads the next
// page; each round links to its page /rounds/{id}/ and has a Replay button (replay.js). What was
// paid is the server's.

import { cardHTML } from "../../cards.js";
import { html, raw } from "../../html.js";
import { format, gettext, locale, pgettext } from "../../i18n.js";
import { money } from "../../money.js";
import { when } from "../../time.js";
import { refresher } from "./refresh.js";
import { spotName, timesText } from "./words.js";

const PAGE = 10; // rounds a read brings (the first, and each "More"): a round with its cards and bets is about 1 KB

const BET_STATUS = {
  open: () => pgettext("bet status", "open"), cancelled: () => pgettext("bet status", "taken back"),
  won: () => pgettext("bet status", "won"), lost: () => pgettext("bet status", "lost"),
  refunded: () => pgettext("bet status", "refunded"),
};

/** A spot's name, as the table names it: "Andar", "1st Andar", "6–10 cards". */
export const spotLabel = spotName;

/** Whether a round can be replayed: it has cards and is over (won, or voided). */
export function replayable(r) {
  return r.cards.length > 0 && (Boolean(r.winner) || r.status === "voided");
}

/** The API path of the page a paginated answer's `next` URL names ("me/rounds/?page=2"), or null. */
export function nextPath(next) {
  if (!next) return null;
  const url = new URL(next, "http://studio.invalid");
  return "me/rounds/" + url.search;
}

function outcome(r) {
  if (r.status === "voided") {
    return html`<p class="gi-void" data-testid="history-void-reason"><strong>${gettext("Voided: your stakes were refunded.")}</strong> ${r.void_reason ? format(gettext("Reason: %(reason)s"), { reason: r.void_reason }) : ""}</p>`;
  }
  if (!r.winner) return html`<p class="muted">${gettext("In play")}</p>`;
  const side = spotLabel(r.winner);
  return html`<p>${format(gettext("%(side)s wins on card %(n)s"), { side, n: r.cards.length })}</p>`;
}

function net(r, lang) {
  const staked = format(gettext("Staked %(amount)s"), { amount: money(r.staked, lang) });
  if (r.net === null || r.net === undefined) return html`<p class="gi-net">${staked}</p>`;
  const sign = r.net.startsWith("-") ? "down" : r.net === "0" || /^0(\.0+)?$/.test(r.net) ? "even" : "up";
  return html`<p class="gi-net">${staked} · ${format(gettext("came back %(amount)s"), { amount: money(r.returned, lang) })} · <strong class="${sign}" data-testid="history-net">${format(gettext("net %(amount)s"), { amount: money(r.net, lang, { signed: true }) })}</strong></p>`;
}

export function roundHTML(r, { tables = {}, lang = locale() } = {}) {
  const name = tables[r.table] || format(gettext("Table %(id)s"), { id: r.table });
  const cards = r.cards.map((c, i) => cardHTML(c.card, { pos: c.position, match: Boolean(r.winner) && i === r.cards.length - 1, cls: c.side }));
  return html`<li class="gi-round" data-round="${r.round}" data-status="${r.status}">
    <div class="gi-round-head"><a href="/rounds/${r.round}/">${format(gettext("Round %(id)s"), { id: r.round })}</a>
      <span class="muted">${name} · <time datetime="${r.opened_at}">${when(r.opened_at)}</time></span>
      ${replayable(r) ? html`<button type="button" class="secondary gi-replay-btn" data-replay="${r.round}" data-testid="history-replay" aria-label="${format(gettext("Replay round %(id)s"), { id: r.round })}">${gettext("Replay")}</button>` : ""}</div>
    <div class="gi-cards mini small"><span class="gi-joker">${raw(cardHTML(r.joker, { cls: "joker" }))}</span><span class="sr-only">${gettext("Cards in the order dealt:")}</span>${raw(cards.join(""))}</div>
    ${outcome(r)}
    <ul class="gi-bets">${r.bets.map((b) => html`<li class="${b.status}"><span>${spotLabel(b.spot)}</span> <span>${money(b.amount, lang)}</span> <span class="muted">${BET_STATUS[b.status] ? BET_STATUS[b.status]() : b.status}</span>${b.multiplier ? html` <span class="times">${timesText(b.multiplier)}</span>` : ""}${b.status === "won" || b.status === "refunded" ? html` <span>→ ${money(b.payout, lang)}</span>` : ""}</li>`)}</ul>
    ${net(r, lang)}
  </li>`;
}

/** Fills #my-history (after its h2) and keeps it current; replay.js, and its style sheet at the URL
 *  `replayCss`, are loaded at the first Replay. */
export function mountHistory(section, { api, on, replayCss }) {
  const list = document.createElement("ol");
  list.className = "gi-history";
  list.dataset.testid = "history-list";
  list.tabIndex = 0;  // a scrolling region: reachable by keyboard
  list.setAttribute("aria-label", gettext("Rounds you bet on, newest first"));
  const empty = document.createElement("p");
  empty.className = "muted";
  empty.hidden = true;
  empty.textContent = gettext("You have not bet in any round yet.");
  const more = document.createElement("button");
  more.type = "button";
  more.className = "secondary";
  more.dataset.testid = "history-more";
  more.textContent = gettext("More");
  more.hidden = true;
  const error = document.createElement("p");
  error.className = "bad";
  error.setAttribute("role", "alert");
  error.hidden = true;
  section.append(list, empty, more, error);
  let tables = null;
  let next = null;
  const rows = new Map();  // each shown round's row, for its replay
  let replay = null;
  list.addEventListener("click", async (e) => {
    const button = e.target.closest("[data-replay]");
    const row = button && rows.get(Number(button.dataset.replay));
    if (!row) return;
    try {
      replay = replay || (await import("./replay.js")).replayer(replayCss);
      (await replay)(row, button);
    } catch (err) {
      replay = null;
      error.textContent = err.message;
      error.hidden = false;
    }
  });

  async function names() {
    if (tables) return tables;
    try {
      const rows = await api("GET", "tables/");
      tables = Object.fromEntries(rows.map((t) => [t.id, t.name]));
    } catch (e) {
      tables = {};
    }
    return tables;
  }

  async function load(path, replace) {
    try {
      const [page, known] = await Promise.all([api("GET", path), names()]);
      const items = page.results.map((r) => String(roundHTML(r, { tables: known }))).join("");
      if (replace) rows.clear();
      for (const r of page.results) rows.set(r.round, r);
      if (replace) list.innerHTML = items;
      else list.insertAdjacentHTML("beforeend", items);
      next = nextPath(page.next);
      more.hidden = !next;
      empty.hidden = list.children.length > 0;
      error.hidden = true;
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    }
  }

  const refresh = refresher(() => load(`me/rounds/?page_size=${PAGE}`, true));
  more.addEventListener("click", async () => {
    if (!next) return;
    more.disabled = true;
    const first = list.children.length;
    await load(next, false);
    more.disabled = false;
    const link = list.children[first]?.querySelector("a");
    if (link) link.focus();
    else if (!more.hidden) more.focus();
  });
  on("play:personal", (event) => {
    if (event.type === "bet.settled" || event.type === "bet.refunded") refresh();
  });
  return refresh();
}
