// The player page's drawing: the felt (cards, joker, countdown, result, notices), the board, the
// rack's state, my bets, the history beads and the table's settings. It draws the state as the
// server described it: the spots and what they pay, the winning spots, the staked, returned and
// net figures are the server's.

import { cardHTML, cardName } from "../../cards.js";
import { esc, html } from "../../html.js";
import { format, gettext, locale, ngettext, pgettext } from "../../i18n.js";
import { cents, money } from "../../money.js";
import { number } from "../../numbers.js";
import { openBets, phaseOf, stakes } from "./state.js";
import {
  cardsCount, correctionLine, countRange, nextCardLine, shortCard, spotName, timesText, voidLine, winsLine,
} from "./words.js";

const $ = (id) => document.getElementById(id);

/** The chip tier of an amount (BigInt hundredths): its colour class. */
export function chipClass(c) {
  const tiers = [100000n, 50000n, 25000n, 10000n, 5000n, 2500n, 1000n, 500n, 100n];
  const t = tiers.find((x) => c >= x) || 100n;
  return "v" + (t / 100n).toString();
}

export function chipLabel(c) {
  if (c >= 100000n && c % 100000n === 0n) return format(pgettext("thousands on a chip", "%(n)sK"), { n: (c / 100000n).toString() });
  return money(c, locale());
}

export function render(S, { root, token, now }) {
  const r = S.round;
  const phase = phaseOf(S, now);
  const canBet = phase === "betting" && root.dataset.conn === "live"; // offline, a bet could not reach the studio
  root.dataset.phase = phase;
  const label = $("round-label");
  const text = r ? format(gettext("Round #%(id)s · joker %(joker)s"), { id: r.id, joker: shortCard(r.joker) })
    + (r.dealer ? " · " + format(gettext("dealer %(name)s"), { name: r.dealer }) : "") : gettext("Waiting for the first round");
  if (label.textContent !== text) label.textContent = text;
  renderFelt(S, r);
  renderMultipliers(r);
  renderStatus(S, r, phase, now);
  renderNotice(S);
  renderTableState(S);
  renderBoard(S, r, canBet, token);
  renderMine(S, r, canBet);
  renderHistory(S);
  renderInfo(S);
  renderBalance(S);
  renderRack(S, canBet);
  renderCrowd(S, locale());
}

function renderFelt(S, r) {
  const joker = $("joker");
  if ((joker.firstElementChild && joker.firstElementChild.dataset.card) !== (r ? r.joker : undefined)) {
    joker.innerHTML = r ? cardHTML(r.joker, { cls: "deal-in" }) : "";
    const card = joker.firstElementChild;
    if (card) card.setAttribute("aria-label", format(gettext("Joker: %(card)s"), { card: cardName(r.joker) }));
  }
  for (const side of ["andar", "bahar"]) {
    const lane = $("cards-" + side);
    const cards = r ? r.cards.filter((c) => c.side === side) : [];
    const shown = [...lane.querySelectorAll(".card")];
    const stale = lane.dataset.round !== String(r ? r.id : "") || shown.length > cards.length
      || shown.some((el, i) => el.dataset.card !== cards[i].card);
    if (stale) { lane.innerHTML = ""; lane.dataset.round = r ? String(r.id) : ""; }
    lane.querySelectorAll(".ghost").forEach((g) => g.remove());
    const have = lane.querySelectorAll(".card").length;
    for (const c of cards.slice(have)) lane.insertAdjacentHTML("beforeend", cardHTML(c.card, { cls: stale ? "" : "deal-in", pos: c.position }));
    const matched = r && r.winner === side && (r.status === "finished" || r.status === "settled") ? lane.querySelector(".card:last-of-type") : null;
    lane.querySelectorAll(".card").forEach((el) => el.classList.toggle("match", el === matched));
    if (r && r.status === "dealing" && r.next_side === side) lane.insertAdjacentHTML("beforeend", '<div class="ghost" aria-hidden="true"></div>');
    $("count-" + side).textContent = cardsCount(cards.length);
    $("lane-" + side).classList.toggle("winner", !!(r && r.winner === side && r.status !== "voided"));
  }
}

/** The round's drawn multipliers on the felt, as the server sent them (from betting's close until
 *  the next round opens); revealed with a short animation the first time this round shows them. */
function renderMultipliers(r) {
  const box = $("mults"), list = $("mults-list");
  const drawn = (r && r.multipliers) || [];
  const key = r && drawn.length ? r.id + ":" + drawn.map((m) => m.spot + "=" + m.multiplier).join("|") : "";
  if (box.dataset.key === key) return;
  const reveal = !!key && !String(box.dataset.key || "").startsWith(r.id + ":");
  box.dataset.key = key;
  list.innerHTML = drawn.map((m) => html`<li class="mult${reveal ? " reveal" : ""}" data-spot="${m.spot}" data-testid="mult-${m.spot}"><b>${timesText(m.multiplier)}</b> <span>${spotName(m.spot)}</span></li>`).join("");
  box.hidden = !key;
}

function renderStatus(S, r, phase, now) {
  const clock = $("clock");
  let title = gettext("Waiting for the dealer"), sub = gettext("The next round opens soon.");
  clock.hidden = true;
  if (phase === "betting") { title = gettext("Place your bets"); sub = ""; clock.hidden = false; }
  else if (phase === "closing") { title = gettext("No more bets"); sub = gettext("Betting is closing…"); clock.hidden = false; }
  else if (phase === "dealing") { title = r.cards.length ? gettext("Dealing…") : gettext("No more bets"); sub = nextCardLine(r.next_side); }
  else if (phase === "paused") { title = gettext("Round paused"); sub = gettext("A supervisor is on the way; your bets are safe."); }
  if (tableStateLine(S.table) && !["betting", "closing", "dealing", "paused"].includes(phase)) sub = ""; // no next round: the line above the felt says why
  setText($("phase"), title);
  setText($("phase-sub"), sub);
  tick(S, now);
  if (r && (r.status === "finished" || r.status === "settled")) banner(resultHTML(S, r), resultClass(S, r));
  else if (r && r.status === "voided") banner(voidedHTML(S, r), "banner void");
  else { const b = $("banner"); b.hidden = true; b.dataset.html = ""; }
}

function resultClass(S, r) {
  const res = S.result && S.result.round === r.id && !S.result.voided ? S.result : null;
  if (!res) return "banner";
  const net = cents(res.net) || 0n;
  return "banner " + (net > 0n ? "won" : net < 0n ? "lost" : "even");
}

function resultHTML(S, r) {
  const loc = locale();
  const res = S.result && S.result.round === r.id && !S.result.voided ? S.result : null;
  const head = html`<div class="outcome">${winsLine(r.winner, r.cards_dealt)}</div>`;
  if (res) {
    const multiplied = S.bets.filter((b, i, all) => b.status === "won" && b.multiplier // the server's: bet.settled or my rounds
      && all.findIndex((o) => o.status === "won" && o.multiplier && o.spot === b.spot) === i); // a spot once
    const wins = multiplied.length ? html`<div class="small mult-wins" data-testid="multiplied-wins">${multiplied.map((b, i) => html`${i ? " · " : ""}${
      format(gettext("%(spot)s won %(times)s"), { spot: spotName(b.spot), times: timesText(b.multiplier) })}`)}</div>` : "";
    return html`${head}<div class="net" data-testid="net"><span class="sr-only">${gettext("Your result:")} </span>${money(res.net, loc, { signed: true })}</div>
      ${wins}<div class="small">${format(gettext("Staked %(staked)s · returned %(returned)s"), { staked: money(res.staked, loc), returned: money(res.returned, loc) })}</div>`.toString();
  }
  const mine = openBets(S).length || S.bets.some((b) => b.status === "won" || b.status === "lost");
  if (mine) return html`${head}<div class="small">${gettext("Settling your bets…")}</div>`.toString();
  const match = r.match || (r.cards.length ? r.cards[r.cards.length - 1].card : null);
  return html`${head}<div class="small">${match ? format(gettext("Joker %(joker)s, matched by %(card)s"), { joker: cardName(r.joker), card: cardName(match) }) : ""}</div>`.toString();
}

function voidedHTML(S, r) {
  const loc = locale();
  const res = S.result && S.result.round === r.id && S.result.voided ? S.result : null;
  return html`<div class="outcome">${gettext("Round voided")}</div>
    <div class="small" data-testid="void-reason">${r.void_reason ? format(gettext("Reason: %(reason)s"), { reason: r.void_reason }) : ""}</div>
    <div class="small">${res ? format(gettext("Your %(amount)s is back in your balance."), { amount: money(res.refunded, loc) }) : gettext("Every bet of this round was refunded.")}</div>`.toString();
}

function banner(markup, cls) {
  const b = $("banner");
  if (b.dataset.html === markup && !b.hidden && b.className === cls) return;
  b.className = cls; b.innerHTML = markup; b.dataset.html = markup; b.hidden = false;
}

/** A closed or maintenance table says so, and why (the supervisor's words); nothing when open. */
export function tableStateLine(table) {
  if (!table || !table.state || table.state === "open") return "";
  const what = table.state === "closed" ? gettext("This table is closed: no new round opens until it reopens.")
    : gettext("This table is under maintenance: no new round opens until it reopens.");
  return table.state_reason ? `${what} ${format(gettext("Reason: %(reason)s"), { reason: table.state_reason })}` : what;
}

function renderTableState(S) {
  const el = $("table-state");
  const text = tableStateLine(S.table);
  if (el.textContent !== text) el.textContent = text;
  el.hidden = !text;
  el.dataset.state = S.table && S.table.state ? S.table.state : "open";
}

function renderNotice(S) {
  const el = $("felt-notice");
  const n = S.notice;
  const text = !n ? "" : n.kind === "corrected" ? correctionLine(n) : n.kind === "voided" ? voidLine(n.reason) : "";
  if (el.textContent !== text) el.textContent = text;
  el.hidden = !text;
  el.dataset.kind = n ? n.kind : "";
}

/** The countdown, every 250 ms: from the page's clock, never the server's time of day. */
export function tick(S, now) {
  const r = S.round, clock = $("clock");
  if (!r || clock.hidden) return;
  const total = (r.betting_seconds || (S.table && S.table.betting_seconds) || 15) * 1000;
  const left = S.deadline ? Math.max(0, S.deadline - now) : 0;
  const secs = String(Math.ceil(left / 1000));
  setText($("clock-num"), secs);
  clock.setAttribute("aria-label", format(gettext("%(n)s seconds left to bet"), { n: secs }));
  $("clock-arc").style.strokeDashoffset = String(100 - Math.min(100, (left / total) * 100));
  clock.classList.toggle("warn", left <= 8000 && left > 4000);
  clock.classList.toggle("hurry", left <= 4000);
}

function renderBoard(S, r, canBet, token) {
  const spots = r ? r.spots || [] : S.idleSpots || [];
  const key = spots.map((s) => s.spot + "=" + s.pays).join("|");
  const mains = $("mains"), sides = $("sides"), counts = $("counts");
  if (mains.dataset.key !== key) {
    mains.dataset.key = key;
    [mains, sides, counts].forEach((el) => (el.innerHTML = ""));
    let n = 0;
    for (const s of spots) {
      const main = s.spot === "andar" || s.spot === "bahar";
      const range = countRange(s.spot);
      const name = range ? html`${range}<span class="unit"> ${gettext("cards")}</span>` : spotName(s.spot);
      const b = document.createElement("button");
      b.type = "button"; b.dataset.spot = s.spot; b.dataset.testid = "spot-" + s.spot;
      b.className = "spot" + (main ? " main" : "");
      b.setAttribute("aria-describedby", "limits");
      b.innerHTML = html`<span class="name">${name}</span><span class="pays">${s.pays}</span>${main ? html`<span class="lim" aria-hidden="true"></span>` : ""}<span class="stack"></span><span class="win-mark" aria-hidden="true">${gettext("WIN")}</span><span class="mult-mark" aria-hidden="true"></span><span class="sr-only said"></span>`.toString();
      if (main) mains.appendChild(b);
      else if (range) { counts.appendChild(b); n++; }
      else sides.appendChild(b);
    }
    counts.style.setProperty("--cols", n > 8 ? 5 : 4);
  }
  const loc = locale();
  const t = S.table;
  if (t) {
    const lim = format(gettext("%(min)s–%(max)s"), { min: money(t.min_bet, loc), max: money(t.max_bet, loc) });
    setText($("limits"), format(gettext("Table limits: %(min)s to %(max)s a round, all your bets counted."), { min: money(t.min_bet, loc), max: money(t.max_bet, loc) }));
    mains.querySelectorAll(".lim").forEach((el) => setText(el, lim));
  }
  const won = new Set(r && (r.status === "finished" || r.status === "settled") ? r.winning_spots || [] : []); // the server's
  const mine = stakes(S);
  const times = new Map(((r && r.multipliers) || []).map((m) => [m.spot, m.multiplier])); // the server's draw
  document.querySelectorAll("#board .spot").forEach((b) => {
    const spot = b.dataset.spot;
    b.disabled = !token || !canBet;
    b.classList.toggle("won", won.has(spot));
    const mult = times.has(spot) ? timesText(times.get(spot)) : "";
    const mark = b.querySelector(".mult-mark");
    if (mark.textContent !== mult) {
      mark.textContent = mult;
      b.classList.toggle("multiplied", !!mult);
      if (mult) { mark.classList.remove("reveal"); void mark.offsetWidth; mark.classList.add("reveal"); }
    }
    const stake = mine[spot] || 0n;
    const stack = b.querySelector(".stack");
    const want = stake ? html`<span class="chip mini ${chipClass(stake)}" data-testid="stake-${spot}" aria-hidden="true">${chipLabel(stake)}</span>`.toString() : "";
    if (stack.innerHTML !== want) stack.innerHTML = want;
    // Its name is its visible text ("Andar 0.9:1", WCAG 2.5.3), then what the marks show, in words.
    const parts = [];
    if (stake) parts.push(format(gettext("your stake %(amount)s"), { amount: money(stake, loc) }));
    if (mult) parts.push(format(gettext("multiplied %(times)s this round"), { times: mult }));
    if (won.has(spot)) parts.push(gettext("won"));
    setText(b.querySelector(".said"), parts.join(", "));
  });
}

function renderMine(S, r, canBet) {
  const list = $("mybets");
  if (!list) return;
  const loc = locale();
  const rows = S.bets.map((b) => {
    const amount = cents(b.amount) || 0n;
    const status = b.status || "open";
    const result = status === "won" && b.multiplier
      ? format(gettext("won %(times)s, %(amount)s back"), { times: timesText(b.multiplier), amount: money(b.payout, loc) })
      : status === "won" ? format(gettext("won, %(amount)s back"), { amount: money(b.payout, loc) })
      : status === "lost" ? gettext("lost") : status === "refunded" ? gettext("refunded") : "";
    const back = canBet && status === "open"
      ? html`<button type="button" class="secondary" data-testid="take-back" data-bet="${b.id}" aria-label="${format(gettext("Take back %(amount)s on %(spot)s"), { amount: money(amount, loc), spot: spotName(b.spot) })}">${gettext("Take back")}</button>` : "";
    return html`<li class="${status}"><span class="chip mini ${chipClass(amount)}" aria-hidden="true">${chipLabel(amount)}</span><span class="what">${spotName(b.spot)} ${money(amount, loc)}${result ? " · " + result : ""}</span>${back}</li>`;
  });
  const empty = html`<li class="muted">${r ? gettext("No bets this round.") : gettext("No round yet.")}</li>`;
  const markup = (rows.length ? html`${rows}` : empty).toString();
  if (list.dataset.html !== markup) { list.innerHTML = markup; list.dataset.html = markup; }
  const total = S.bets.filter((b) => b.status !== "refunded").reduce((t, b) => t + (cents(b.amount) || 0n), 0n);
  setText($("mytotal"), total ? format(gettext("Total staked: %(amount)s"), { amount: money(total, loc) }) : "");
  const away = $("away");
  if (away) {
    const a = S.away;
    const markup2 = a ? awayHTML(a).toString() : "";
    if (away.dataset.html !== markup2) { away.innerHTML = markup2; away.dataset.html = markup2; }
    away.hidden = !a;
  }
}

/** The result of a round the player missed while the page was disconnected (GET /api/me/rounds/). */
function awayHTML(a) {
  const loc = locale();
  if (a.status === "voided") {
    return html`<strong>${format(gettext("While you were away: round #%(id)s was voided."), { id: a.round })}</strong>
      <div>${a.void_reason ? format(gettext("Reason: %(reason)s"), { reason: a.void_reason }) : ""}</div>
      <div>${format(gettext("Your %(amount)s is back in your balance."), { amount: money(a.returned, loc) })}</div>`;
  }
  return html`<strong>${format(gettext("While you were away: round #%(id)s"), { id: a.round })}</strong>
    <div>${a.winner === "andar" ? gettext("Andar won.") : a.winner === "bahar" ? gettext("Bahar won.") : ""} ${gettext("Your result:")} <span class="net">${money(a.net, loc, { signed: true })}</span></div>
    <div class="muted">${format(gettext("Staked %(staked)s · returned %(returned)s"), { staked: money(a.staked, loc), returned: money(a.returned, loc) })}</div>`;
}

function renderInfo(S) {
  const t = S.table, box = $("info");
  if (!t) return;
  const loc = locale();
  const first = { andar: gettext("Andar"), bahar: gettext("Bahar"), joker_colour: gettext("by the joker's colour (black: Andar, red: Bahar)") }[t.first_card] || t.first_card;
  const rows = [
    [gettext("First card"), first],
    [gettext("Game"), t.mode === "no_commission" ? gettext("No commission") : gettext("Classic")],
    [gettext("Stakes"), format(gettext("%(min)s to %(max)s a round"), { min: money(t.min_bet, loc), max: money(t.max_bet, loc) })],
    [gettext("Betting"), format(gettext("%(n)s s after the joker"), { n: t.betting_seconds })],
    [gettext("Sides"), t.allow_both_sides ? gettext("both sides allowed") : gettext("one main side a round")],
  ];
  const markup = rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("");
  if (box.dataset.html !== markup) { box.innerHTML = markup; box.dataset.html = markup; }
}

function renderHistory(S) {
  const box = $("beads");
  const key = S.history.map((h) => h.id).join(",");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (S.history.length) box.setAttribute("role", "list"); else box.removeAttribute("role");
  box.innerHTML = S.history.length ? S.history.map((h) => html`<span class="bead ${h.winner}" role="listitem" aria-label="${
    format(gettext("Round #%(id)s: %(result)s"), { id: h.id, result: winsLine(h.winner, h.cards_dealt) })}" title="${
    format(gettext("Round #%(id)s: %(result)s"), { id: h.id, result: winsLine(h.winner, h.cards_dealt) })}"><span aria-hidden="true">${
    h.winner === "andar" ? pgettext("Andar, one letter", "A") : pgettext("Bahar, one letter", "B")}<sub>${h.cards_dealt}</sub></span></span>`).join("")
    : html`<span class="muted">${gettext("No finished rounds yet.")}</span>`.toString();
}

function renderBalance(S) {
  const el = $("balance");
  if (!el || S.balance == null) return;
  const text = money(S.balance, locale());
  if (el.textContent !== text) {
    const had = el.textContent !== "…";
    el.textContent = text;
    if (had) { const box = el.parentElement; box.classList.remove("bump"); void box.offsetWidth; box.classList.add("bump"); }
  }
}

function renderRack(S, open) {
  const chips = $("chips");
  if (!chips) return;
  chips.querySelectorAll(".chip").forEach((c) => {
    const on = c.dataset.value === String(S.chip);
    c.setAttribute("aria-checked", String(on));
    c.tabIndex = on ? 0 : -1;
  });
  const mine = openBets(S).length > 0;
  $("undo").disabled = !open || !mine;
  $("clear").disabled = !open || !mine;
  $("double").disabled = !open || !mine;
  $("repeat").disabled = !open || !S.repeatable;
}

/** The round's crowd while it is known: "12 players in this round · Andar 60% · Bahar 40%". */
function renderCrowd(S, loc) {
  const el = $("crowd");
  if (!el) return;
  const c = S.crowd;
  if (!c) return setText(el, ""); // its line is kept: nothing moves when the first figures come
  const parts = [format(ngettext("%(n)s player in this round", "%(n)s players in this round", c.players), { n: number(String(c.players), loc) })];
  if (c.andar !== "") {
    parts.push(`${pgettext("side", "Andar")} ${number(c.andar, loc, { min: 0, max: 1 })}%`,
               `${pgettext("side", "Bahar")} ${number(c.bahar, loc, { min: 0, max: 1 })}%`);
  }
  setText(el, parts.join(" · "));
}

function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }
