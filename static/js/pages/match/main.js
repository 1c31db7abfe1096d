// The match page (/matches/{id}/), in three views chosen by the match's status:
// - lobby: the code, the share link, who has joined (refreshed every 2 s), Start for the creator;
// - running: the felt (live from the table's stream), the set-out proposal, the chips to build the
//   round's bets, Bet / Sit out, who is done this round, the standings and the round counter;
// - finished: the ranking and a line chart of everyone's chips or points round by round.
// The server says everything the rules decide: the match's state (GET /api/matches/{id}/), the
// table's stream (winning spots in round.finished, the player's result in bet.settled), the ranks
// and net results. See docs/MATCHES.md.

import { client, pageToken } from "../../api.js";
import { cardHTML } from "../../cards.js";
import { html } from "../../html.js";
import { format, gettext, ngettext } from "../../i18n.js";
import { cents, decimal, money } from "../../money.js";
import { number } from "../../numbers.js";
import { LiveSocket, Sequencer, socketURL } from "../../stream.js";
import * as EV from "../../../events.js";
import { addChip as slipAdd, limits as slipLimits, sameBets, stakes, total as slipTotal } from "./slip.js";
import { countRange, listing, sideName, spotName } from "./words.js";
import { $, LOC, root, S, bettingOpen, cardText, fill, me, setHTML } from "./state.js";
import { drawChart, renderLobby, renderResults, renderStandings } from "./views.js";

const MATCH = Number(root.dataset.match);
const TOKEN = pageToken("match-token");
const api = client({ token: TOKEN });
const CHIPS = [10, 25, 50, 100, 250, 500];
const myChips = () => (S.state && S.state.me ? cents(S.state.me.chips) ?? 0n : 0n);
const limits = () => slipLimits((S.round && S.round.settings) || S.table || {});

function explain(e) {
  const extra = Object.values(e.fields || {}).flat().filter((m) => m !== e.message);
  return [e.message || gettext("Something went wrong.")].concat(extra).join(" ");
}

/* ---- The match's state: fetched on load, after events, and every 2 s while people are choosing ---- */
async function refresh() {
  const n = ++S.asked;
  try {
    const st = await api("GET", `matches/${MATCH}/`);
    if (n > S.applied) { S.applied = n; setState(st); }  // an older answer never overwrites a newer one
  } catch (e) {
    if (e.status === 403 || e.status === 404) return gone(e.message);
    showError(e);
  } finally { schedule(); }
}
function schedule() {
  clearTimeout(S.poll);
  const st = S.state;
  if (!st || st.status === "finished" || S.closed) return;
  const choosing = st.status === "lobby" || (S.round && S.round.status === "betting");
  S.poll = setTimeout(refresh, choosing ? 2000 : 8000);
}
function setState(st) {
  S.state = st;
  for (const p of st.players) for (const h of p.history) S.counted.add(h.round);
  const cur = st.current_round;
  if (st.status !== "finished" && !S.socket) connect();  // in the lobby too: match.started comes at once
  if (st.status === "finished" && S.socket) { S.socket.close(); S.socket = null; }
  if (cur && cur.status === "betting" && st.me && S.proposalFor !== cur.id) {
    S.proposalFor = cur.id;
    S.proposal = st.me.proposal.map((b) => ({ spot: b.spot, amount: cents(b.amount) }));
    if (S.slipRound !== cur.id || !S.slip.length) {  // the table sets out the last bet again (unless you started a new one)
      S.slipRound = cur.id;
      S.slip = S.proposal.map((b) => ({ ...b }));
    }
  }
  if (cur && st.me && st.me.done && (!S.mine || S.mine.round !== cur.id)) loadMine(cur.id);
  render();
}
async function loadMine(roundId) {
  S.mine = { round: roundId, bets: [], loading: true };
  try {
    const mine = await api("GET", `rounds/${roundId}/bets/`);
    if (S.mine && S.mine.round === roundId) {
      S.mine = { round: roundId, bets: mine.bets.filter((b) => b.status !== "cancelled").map((b) => ({ spot: b.spot, amount: cents(b.amount) })) };
    }
    render();
  } catch (e) { /* shown as "done" meanwhile */ }
}

/* ---- The table's stream: snapshot, events in seq order (stream.js), personal events ---- */
const sequencer = new Sequencer({
  apply: (e) => { apply(e); render(); },
  reset: (snap) => {
    S.table = snap.table;
    setRound(snap.round, snap.round ? snap.round.betting_left_ms : 0);
    render();
    refresh();
  },
  resync: async () => {
    try { sequencer.snapshot(await api("GET", `tables/${S.state.table}/stream-snapshot/`)); }
    catch (e) { sequencer.failed(); setTimeout(() => sequencer.askOnce(), 2000); }
  },
});
function connect() {
  if (!S.state || S.closed) return;
  S.socket = new LiveSocket(socketURL(`/ws/tables/${S.state.table}/`, TOKEN), {
    onState: setConn,
    onMessage: (m) => {
      if (m.type === "snapshot") sequencer.snapshot(m);
      else if (m.seq == null) personal(m);
      else sequencer.event(m);
    },
  }).open();
}
function setConn(state) {
  const words = { connecting: gettext("Connecting…"), live: gettext("Live"), offline: gettext("Reconnecting…"), gone: gettext("Not available"),
    "signed-out": gettext("Sign in") };
  $("conn").dataset.state = state;
  $("conn").querySelector("span").textContent = words[state] || state;
}
function setRound(r, leftMs) {
  if (!S.round || !r || S.round.id !== r.id) S.result = null;
  S.round = r;
  S.deadline = r && r.status === "betting" ? performance.now() + (leftMs || 0) : null;
}
function apply(e) {
  const r = S.round && S.round.id === e.round ? S.round : null;
  switch (e.type) {
    case EV.ROUND_OPENED:
      setRound({ id: e.round, status: "betting", joker: e.joker, first_side: e.first_side, cards: [], cards_dealt: 0, winner: null,
        winning_spots: [], next_side: e.first_side, spots: e.spots, betting_seconds: e.betting_seconds }, Date.parse(e.closes_at) - Date.parse(e.at));
      S.slipRound = e.round; S.slip = []; S.proposal = [];
      refresh();
      break;
    case EV.BETTING_CLOSED:
      if (r) { r.status = "dealing"; r.closed_reason = e.reason; S.deadline = null; }
      break;
    case EV.CARD_DEALT:
      if (r && !r.cards.some((c) => c.position === e.position)) {
        r.cards.push({ position: e.position, side: e.side, card: e.card });
        r.cards_dealt = e.position; r.next_side = e.next_side ?? null;
        if (r.status === "betting") { r.status = "dealing"; S.deadline = null; }
      }
      break;
    case EV.ROUND_FINISHED:
      if (r) Object.assign(r, { status: "finished", winner: e.winner, cards_dealt: e.cards_dealt, match: e.match, winning_spots: e.winning_spots, next_side: null });
      break;
    case EV.ROUND_SETTLED:
      if (r) r.status = "settled";
      break;
    case EV.MATCH_ROUND:
      S.counted.add(e.round);
      if (S.state) {
        S.state.rounds_played = e.rounds_played;
        for (const row of e.standings) {
          const p = S.state.players.find((x) => x.player === row.player);
          if (p) Object.assign(p, { chips: row.chips, points: row.points, rank: row.rank });
          if (S.state.me && row.player === S.state.me.player) Object.assign(S.state.me, { chips: row.chips, points: row.points });
        }
      }
      refresh();  // who watches now, the history: the server's
      break;
    case EV.MATCH_STARTED: case EV.MATCH_FINISHED:
      refresh();
      break;
    default: // paused, resumed, corrected, voided: take the round from the API
      if (e.round) api("GET", `rounds/${e.round}/`).then((x) => { if (S.round && S.round.id === x.id) { setRound(x, x.betting_left_ms); render(); } }).catch(() => {});
      refresh();
  }
}
function personal(m) {
  if (!S.round || m.round !== S.round.id) return;  // another table's bets (the same person may play elsewhere)
  if (m.type === EV.BET_PLACED) {
    if (!S.mine || S.mine.round !== m.round) S.mine = { round: m.round, bets: [] };
    if (!S.mine.ids) S.mine.ids = new Set();
    if (!S.mine.ids.has(m.bet)) { S.mine.ids.add(m.bet); if (!S.mine.fromSlip) S.mine.bets.push({ spot: m.spot, amount: cents(m.amount) }); }
    setChips(m.balance);
  } else if (m.type === EV.BET_SETTLED) {
    S.result = { round: m.round, payout: cents(m.payout), staked: cents(m.staked), net: cents(m.net) };
    setChips(m.balance, true);
  }
  render();
}
function setChips(text, bump) {
  const mine = S.state && S.state.players.find((p) => p.player === me());
  if (mine) mine.chips = text;
  if (S.state && S.state.me) S.state.me.chips = text;
  if (bump) { const box = $("mine-box"); box.classList.remove("bump"); void box.offsetWidth; box.classList.add("bump"); }
}

/* ---- Betting: build the slip on the page, then one call places it all (or nothing) ---- */
function mode() {
  const st = S.state, r = S.round, p = st && st.players.find((x) => x.player === me());
  if (!st || !st.me) return "wait";
  if (p && p.watching) return "watching";
  if (!r || r.status !== "betting") return r && r.status !== "settled" && r.status !== "voided" ? "closed" : "wait";
  if ((st.current_round && st.current_round.id === r.id && st.me.done) || (S.mine && S.mine.round === r.id)) return "done";
  return bettingOpen() ? "open" : "closed";
}
function addChip(spot) {
  if (mode() !== "open") return;
  if (S.slipRound !== S.round.id) { S.slipRound = S.round.id; S.slip = []; }
  const { slip, added, removed, cap } = slipAdd(S.slip, spot, S.chip, limits(), myChips());
  S.slip = slip;
  render();
  if (added <= 0n) $("hint").textContent = format(gettext("That is the most you can stake this round (%(amount)s)."), { amount: money(cap, LOC) });
  else if (removed) $("hint").textContent = format(gettext("One main side a round: your %(side)s stake came off."), { side: sideName(removed) });
  else if (added < S.chip) $("hint").textContent = format(gettext("Capped at %(amount)s this round."), { amount: money(cap, LOC) });
  else $("hint").textContent = "";
}
async function send(kind) {
  const roundId = S.round && S.round.id;
  if (S.busy || !roundId) return;
  S.busy = true; render();
  try {
    const bets = S.slip.map((b) => ({ ...b }));
    const next = kind === "bet"
      ? await api("POST", `matches/${MATCH}/bet/`, { bets: bets.map((b) => ({ spot: b.spot, amount: decimal(b.amount) })) })
      : await api("POST", `matches/${MATCH}/sit-out/`);
    S.mine = { round: roundId, bets: kind === "bet" ? bets : [], fromSlip: true, ids: (S.mine && S.mine.round === roundId && S.mine.ids) || new Set() };
    hideError();
    setState(next);
  } catch (e) { showError(e); } finally { S.busy = false; render(); }
}

/* ---- Rendering ---- */
function render() {
  const st = S.state;
  if (!st || S.closed && !$("gone").hidden) return;
  root.dataset.status = st.status;
  if ($("code").textContent !== st.code) {
    $("code").textContent = $("lobby-code").textContent = st.code;
    document.title = format(gettext("Match %(code)s · Andar Bahar"), { code: st.code });
  }
  $("lobby").hidden = st.status !== "lobby";
  $("table").hidden = st.status !== "running";
  $("results").hidden = st.status !== "finished";
  if (st.status === "lobby") return renderLobby(st);
  if (st.status === "finished") return renderResults(st);
  const r = S.round, m = mode();
  const phase = !r ? "waiting" : r.status === "betting" ? (bettingOpen() ? "betting" : "closing") : r.status;
  root.dataset.phase = phase;
  const n = Math.min(st.rounds, st.rounds_played + (r && r.status !== "voided" && !S.counted.has(r.id) ? 1 : 0));
  $("counter").textContent = n ? format(gettext("Round %(n)s of %(total)s"), { n, total: st.rounds })
    : format(gettext("Round 1 of %(total)s soon"), { total: st.rounds });
  $("mine-label").textContent = st.scoring === "points" ? gettext("Points") : gettext("Chips");
  $("mine").textContent = st.me ? (st.scoring === "points" ? number(st.me.points, LOC) : money(myChips(), LOC)) : "–";
  renderFelt(r);
  renderStatus(r, phase);
  renderBoard(r, m);
  renderBetting(st, r, m);
  renderStandings(st, r);
}
function cardNode(code, opts) {
  const t = document.createElement("template");
  t.innerHTML = cardHTML(code, opts);
  return t.content.firstElementChild;
}
function renderFelt(r) {
  const joker = $("joker");
  if ((joker.firstElementChild && joker.firstElementChild.dataset.card) !== (r ? r.joker : undefined)) {
    joker.innerHTML = "";
    if (r) joker.appendChild(cardNode(r.joker, { cls: "deal-in" }));
  }
  for (const side of ["andar", "bahar"]) {
    const lane = $("cards-" + side), cards = r ? r.cards.filter((c) => c.side === side) : [];
    const shown = [...lane.querySelectorAll(".card")];
    const stale = lane.dataset.round !== String(r ? r.id : "") || shown.length > cards.length || shown.some((el, i) => el.dataset.card !== cards[i].card);
    if (stale) { lane.innerHTML = ""; lane.dataset.round = r ? String(r.id) : ""; }
    lane.querySelectorAll(".ghost").forEach((g) => g.remove());
    cards.slice(lane.querySelectorAll(".card").length).forEach((c) => lane.appendChild(cardNode(c.card, { cls: stale ? "" : "deal-in", pos: c.position })));
    const ended = r && r.winner === side ? cards.findIndex((c) => c.position === r.cards_dealt) : -1;  // the card the deal ended on
    lane.querySelectorAll(".card").forEach((el, i) => el.classList.toggle("match", i === ended));
    if (r && r.status === "dealing" && r.next_side === side) {
      const g = document.createElement("div"); g.className = "ghost"; g.setAttribute("aria-hidden", "true"); lane.appendChild(g);
    }
    $("lane-" + side).classList.toggle("winner", !!(r && r.winner === side));
    const count = cards.length;
    $("cards-" + side).setAttribute("aria-label", ngettext("%(side)s: %(n)s card", "%(side)s: %(n)s cards", count, { side: sideName(side) }));
  }
}
function renderStatus(r, phase) {
  let title = gettext("Waiting for the first round"), sub = gettext("The table deals by itself: the first joker is on its way.");
  $("clock").hidden = phase !== "betting";
  if (phase === "betting") { title = gettext("Place your bets"); sub = format(gettext("First card to %(side)s"), { side: sideName(r.first_side) }); }
  else if (phase === "closing" || (phase === "dealing" && !r.cards.length)) {
    title = gettext("No more bets"); sub = r.closed_reason === "everyone has bet" ? gettext("Everyone is in.") : gettext("Time is up.");
  } else if (phase === "dealing") { title = gettext("Dealing…"); sub = r.next_side ? format(gettext("Next card to %(side)s"), { side: sideName(r.next_side) }) : ""; }
  else if (phase === "paused") { title = gettext("Round paused"); sub = gettext("A supervisor is looking into it."); }
  else if (r && (phase === "settled" || phase === "finished" || phase === "voided")) { title = gettext("Next round in a moment"); sub = ""; }
  $("phase").textContent = title;
  $("phase-sub").textContent = sub;
  tick();
  const banner = $("banner");
  if (r && (r.status === "finished" || r.status === "settled")) {
    const side = sideName(r.winner), n = r.cards_dealt;
    const res = S.result && S.result.round === r.id ? S.result : null;
    const sat = S.mine && S.mine.round === r.id && !S.mine.bets.length && !S.mine.loading;
    let big, cls = "banner";
    if (res && res.payout > 0n) {
      big = fill(gettext("%(side)s wins on card %(n)s — you won %(amount)s"), { side, n, amount: html`<em>${money(res.payout, LOC)}</em>` });
      cls += " won";
    } else if (res) big = fill(gettext("%(side)s wins on card %(n)s — you lost %(amount)s"), { side, n, amount: money(res.staked, LOC) });
    else if (sat) big = fill(gettext("%(side)s wins on card %(n)s — you sat out"), { side, n });
    else big = fill(gettext("%(side)s wins on card %(n)s"), { side, n });
    const matched = r.match || (r.cards.length ? r.cards[r.cards.length - 1].card : null);
    const cardsOf = { joker: cardText(r.joker), card: matched ? cardText(matched) : "" };
    const small = res && res.payout > 0n
      ? fill(gettext("Joker %(joker)s · matched by %(card)s · staked %(staked)s · net %(net)s"),
        { ...cardsOf, staked: money(res.staked, LOC), net: money(res.net, LOC, { signed: true }) })
      : fill(gettext("Joker %(joker)s · matched by %(card)s"), cardsOf);
    setBanner(cls, html`<div class="big">${big}</div><div class="small">${small}</div>`);
  } else if (r && r.status === "voided") {
    setBanner("banner", html`<div class="big">${gettext("Round voided")}</div><div class="small">${gettext("Every bet was returned; the round does not count.")}</div>`);
  } else { banner.hidden = true; banner.dataset.html = ""; }
  $("phase-box").hidden = !banner.hidden;
}
function setBanner(cls, text) {
  const b = $("banner");
  if (b.dataset.html === String(text) && !b.hidden) return;
  b.className = cls; b.innerHTML = String(text); b.dataset.html = String(text); b.hidden = false;
}
function tick() {
  const r = S.round;
  if (!r || $("clock").hidden) return;
  const total = (r.betting_seconds || (r.settings && r.settings.betting_seconds) || (S.table && S.table.betting_seconds) || 20) * 1000;
  const left = S.deadline ? Math.max(0, S.deadline - performance.now()) : 0;
  const secs = Math.ceil(left / 1000);
  if ($("clock-num").textContent !== String(secs)) {
    $("clock-num").textContent = String(secs);
    $("clock").setAttribute("aria-label", ngettext("%(n)s second left to bet", "%(n)s seconds left to bet", secs));
  }
  $("clock-arc").style.strokeDashoffset = String(100 - Math.min(100, (left / total) * 100));
  $("clock").classList.toggle("hurry", left <= 3000);
  if (left === 0 && root.dataset.phase === "betting") render();
}
setInterval(tick, 250);
function chipClass(v) { return "v" + ([...CHIPS].reverse().find((c) => v >= BigInt(c) * 100n) || 10); }
function renderBoard(r, m) {
  const spots = (r && r.spots) || [];
  const key = spots.map((s) => s.spot + s.pays).join("|");
  if ($("mains").dataset.key !== key) {
    $("mains").dataset.key = key;
    ["mains", "sides", "counts"].forEach((id) => ($(id).innerHTML = ""));
    for (const s of spots) {
      const b = document.createElement("button"), main = s.spot === "andar" || s.spot === "bahar", range = countRange(s.spot);
      b.type = "button"; b.className = "spot" + (main ? " main" : ""); b.dataset.spot = s.spot; b.dataset.testid = "spot-" + s.spot;
      const name = range ? html`${range}<span class="unit"> ${gettext("cards")}</span>` : spotName(s.spot);
      b.innerHTML = String(html`<span class="name">${name}</span><span class="pays">${s.pays}</span><span class="stake"></span><span class="sr-only said"></span>`);
      $(main ? "mains" : range ? "counts" : "sides").appendChild(b);
    }
  }
  const shown = m === "open" ? S.slip : S.mine && r && S.mine.round === r.id ? S.mine.bets : [];
  const on = stakes(shown);
  const won = new Set((r && r.winning_spots) || []);
  document.querySelectorAll("#board .spot").forEach((b) => {
    b.disabled = m !== "open";
    b.classList.toggle("won", won.has(b.dataset.spot));
    const v = on[b.dataset.spot] || 0n;
    const text = v ? String(html`<span class="chip mini ${chipClass(v)}" data-testid="stake-${b.dataset.spot}" aria-hidden="true">${money(v, LOC)}</span>`) : "";
    const box = b.querySelector(".stake");
    if (box.innerHTML !== text) box.innerHTML = text;
    // The button's name is its content, the spot and what it pays as shown ("Andar 0.9:1"), so that it
    // contains the visible label (WCAG 2.5.3); then the stake and the win in words.
    const said = [v ? format(gettext("your stake %(amount)s"), { amount: money(v, LOC) }) : "", won.has(b.dataset.spot) ? gettext("won") : ""].filter(Boolean).join(", ");
    const words = b.querySelector(".said");
    if (words.textContent !== said) words.textContent = said;
  });
}
function renderBetting(st, r, m) {
  const box = $("betting"), note = $("note"), chips = $("chips");
  box.dataset.mode = m;
  const { min, max } = limits(), have = myChips();
  const values = CHIPS.filter((v) => BigInt(v) * 100n <= max);
  if (chips.dataset.key !== values.join()) {
    chips.dataset.key = values.join(); chips.innerHTML = "";
    for (const v of values) {
      const c = document.createElement("button");
      c.type = "button"; c.className = "chip " + chipClass(BigInt(v) * 100n); c.textContent = money(BigInt(v) * 100n, LOC);
      c.dataset.value = String(v * 100); c.dataset.testid = "chip-" + v;
      c.setAttribute("aria-label", format(gettext("Chip of %(amount)s"), { amount: money(BigInt(v) * 100n, LOC) }));
      chips.appendChild(c);
    }
  }
  chips.querySelectorAll(".chip").forEach((c) => { c.setAttribute("aria-pressed", String(BigInt(c.dataset.value) === S.chip)); c.disabled = m !== "open"; });
  let text = "", noteHtml = "", watch = false;
  const total = slipTotal(S.slip);
  if (m === "watching") {
    watch = true;
    noteHtml = fill(gettext("You have no chips left, so you are %(watching)s the rest of the match."), { watching: html`<b>${gettext("watching")}</b>` });
  } else if (m === "open") {
    if (S.proposal.length && sameBets(S.slip, S.proposal)) {
      noteHtml = fill(gettext("Your last bet: %(bets)s — tap Bet"), { bets: html`<b>${listing(S.proposal, LOC)}</b>` });
    } else if (S.proposal.length) {
      noteHtml = html`${format(gettext("Your last bet was %(bets)s."), { bets: listing(S.proposal, LOC) })} <button type="button" class="secondary" data-action="again" data-testid="set-out-again">${gettext("Set it out again")}</button>`;
    }
    text = total
      ? html`${fill(gettext("Your bet: %(bets)s · total %(total)s"), { bets: html`<b>${listing(S.slip, LOC)}</b>`, total: html`<b>${money(total, LOC)}</b>` })} <button type="button" class="secondary small" data-action="clear">${gettext("Clear")}</button>`
      : fill(gettext("Pick a chip, tap a spot, then %(bet)s. Stakes %(min)s–%(max)s a round."),
        { bet: html`<b>${gettext("Bet")}</b>`, min: money(min, LOC), max: money(max < have ? max : have, LOC) });
  } else if (m === "done") {
    const mine = S.mine && S.mine.round === r.id ? S.mine : null;
    text = !mine || mine.loading ? gettext("You are done for this round.")
      : mine.bets.length ? fill(gettext("You bet %(bets)s. Waiting for the others…"), { bets: html`<b>${listing(mine.bets, LOC)}</b>` })
        : gettext("You sit this round out. Waiting for the others…");
  } else if (m === "closed") {
    const mine = S.mine && r && S.mine.round === r.id ? S.mine : null;
    text = mine && mine.bets.length ? fill(gettext("Your bet: %(bets)s"), { bets: html`<b>${listing(mine.bets, LOC)}</b>` })
      : mine ? gettext("You sat this round out.") : gettext("Betting is closed for this round.");
  } else text = gettext("Betting opens with the next joker.");
  note.hidden = !String(noteHtml); note.classList.toggle("watch", watch);
  setHTML(note, noteHtml);
  setHTML($("slip"), html`${text}`);
  $("bet").disabled = m !== "open" || !total || S.busy;
  $("bet").textContent = total && m === "open" ? format(gettext("Bet %(amount)s"), { amount: money(total, LOC) }) : gettext("Bet");
  $("sit-out").disabled = m !== "open" || S.busy;
  $("rack").hidden = m === "watching";
  if (m !== "open") $("hint").textContent = "";
}
window.addEventListener("resize", () => { if (S.state && S.state.status === "finished") drawChart(S.state); });

/* ---- Errors ---- */
function showError(e) {
  const t = $("toast");
  t.querySelector("strong").textContent = explain(e);
  t.hidden = false;
  clearTimeout(S.toastTimer); S.toastTimer = setTimeout(hideError, 7000);
}
function hideError() { $("toast").hidden = true; }
function gone(message) {
  S.closed = true;
  if (S.socket) { S.socket.close(); S.socket = null; }
  ["lobby", "table", "results"].forEach((id) => ($(id).hidden = true));
  $("gone-message").textContent = message;
  $("gone").hidden = false;
}

/* ---- Wiring ---- */
$("toast").querySelector(".x").addEventListener("click", hideError);
$("bet").addEventListener("click", () => send("bet"));
$("sit-out").addEventListener("click", () => send("sit-out"));
$("board").addEventListener("click", (ev) => {
  const spot = ev.target.closest(".spot");
  if (spot && !spot.disabled) addChip(spot.dataset.spot);
});
$("chips").addEventListener("click", (ev) => {
  const chip = ev.target.closest(".chip");
  if (chip && !chip.disabled) { S.chip = BigInt(chip.dataset.value); render(); }
});
$("betting").addEventListener("click", (ev) => {
  const action = ev.target.closest("[data-action]");
  if (!action) return;
  if (action.dataset.action === "again") S.slip = S.proposal.map((b) => ({ ...b }));
  if (action.dataset.action === "clear") S.slip = [];
  $("hint").textContent = "";
  render();
  $("bet").focus();
});
$("copy").addEventListener("click", async () => {
  const input = $("share-link");
  try { await navigator.clipboard.writeText(input.value); } catch (e) { input.select(); document.execCommand("copy"); }
  $("copy").textContent = gettext("Copied ✓");
  setTimeout(() => ($("copy").textContent = gettext("Copy link")), 2000);
});
$("start").addEventListener("click", async () => {
  S.busy = true; render();
  try { setState(await api("POST", `matches/${MATCH}/start/`)); } catch (e) { showError(e); } finally { S.busy = false; render(); }
});
refresh();
