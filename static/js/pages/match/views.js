// The match page's standings, lobby and results: who is where, who has played this round, the
// ranking in words and the chart of everyone's chips or points round by round.
import { html } from "../../html.js";
import { format, gettext, ngettext } from "../../i18n.js";
import { cents, decimal, money } from "../../money.js";
import { number } from "../../numbers.js";
import { when } from "../../time.js";
import { chartSVG } from "./chart.js";
import { $, LOC, root, S, YouOr, avatar, bettingOpen, colorOf, me, nameYou, setHTML, youOr } from "./state.js";
import { names, place } from "./words.js";

const CUP_SVG = `<svg viewBox="0 0 64 64" aria-hidden="true"><path d="M19 6h26v12c0 9-6 16-13 16s-13-7-13-16z" fill="#e6b94a"/><path d="M19 11H9c0 9 5 14 11 14M45 11h10c0 9-5 14-11 14" fill="none" stroke="#e6b94a" stroke-width="4"/><path d="M28 33h8l2 10H26z" fill="#c9a13c"/><rect x="20" y="43" width="24" height="6" rx="2" fill="#e6b94a"/><rect x="16" y="50" width="32" height="7" rx="2" fill="#8a6a1f"/><path d="M25 11v8c0 4 2 7 5 8" fill="none" stroke="#fff6" stroke-width="3" stroke-linecap="round"/></svg>`;
const DRAW_SVG = `<svg viewBox="0 0 64 64" aria-hidden="true"><circle cx="32" cy="32" r="27" fill="none" stroke="#e6b94a" stroke-width="4"/><rect x="18" y="23" width="28" height="6" rx="3" fill="#e6b94a"/><rect x="18" y="35" width="28" height="6" rx="3" fill="#e6b94a"/></svg>`;

function statusOf(p, r, st) {
  if (p.watching) return ["watching", gettext("Watching: no chips left")];
  if (!r || !st.current_round || st.current_round.id !== r.id || r.status === "settled" || r.status === "voided") return ["idle", ""];
  const action = p.action || (p.player === me() && S.mine && S.mine.round === r.id && !S.mine.loading ? (S.mine.bets.length ? "bet" : "sat_out") : null);
  if (p.done) return action === "bet" ? ["bet", gettext("Bet ✓")] : action === "sat_out" ? ["sat_out", gettext("Sat out")] : ["ready", gettext("Ready ✓")];
  return r.status === "betting" && bettingOpen() ? ["choosing", gettext("Choosing")] : ["timed_out", gettext("Sat out (time ran out)")];
}
const byRank = (players) => players.slice().sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.player.localeCompare(b.player));
function scoreHTML(st, p) {
  return st.scoring === "points"
    ? html`${number(p.points, LOC)}<small>${gettext("points")}</small>`
    : html`${money(p.chips, LOC)}<small>${gettext("chips")}</small>`;
}
export function renderStandings(st, r) {
  const rows = byRank(st.players).map((p) => {
    const [code, label] = statusOf(p, r, st);
    return html`<li class="${p.player === me() ? "me" : ""}" data-testid="standing-${p.player}" data-player="${p.player}">
      <span class="rk">${p.rank ?? ""}</span>${avatar(p.player)}
      <span class="nm">${nameYou(p.player)}</span><span class="sc" data-testid="score">${scoreHTML(st, p)}</span>
      <span class="st" data-status="${code}" data-testid="round-status">${label}</span></li>`;
  });
  setHTML($("standings"), html`${rows}`);
  const who = st.players.map((p) => {  // the phone's one-line summary of who is done (the standings are further down)
    const [code, label] = statusOf(p, r, st);
    return code === "idle" ? "" : html`<span data-status="${code}">${avatar(p.player, "av")}${youOr(p.player)} · ${label}</span>`;
  });
  setHTML($("who"), html`${who}`);
  const rules = $("rules");
  if (!rules.dataset.done) {
    rules.dataset.done = "1";
    $("rules-scoring").textContent = st.scoring === "points"
      ? gettext("One point for each round where your Andar or Bahar bet wins. Highest score after the last round wins; ties share.")
      : format(gettext("Everyone started with %(chips)s chips. Most chips after the last round wins; players level at the top share the win. The match ends early when only one player has chips left."),
        { chips: money(st.start_chips, LOC) });
  }
}

/* ---- Lobby ---- */
export function renderLobby(st) {
  const link = `${location.origin}/matches/join/${st.code}/`;
  if ($("share-link").value !== link) $("share-link").value = link;
  $("lobby-count").textContent = format(gettext("Players (%(n)s of %(max)s)"), { n: st.players.length, max: 6 });
  const how = st.scoring === "points" ? gettext("Teaching: a point for each round you pick the winning side")
    : format(gettext("Play chips: everyone starts with %(chips)s"), { chips: money(st.start_chips, LOC) });
  $("lobby-settings").textContent = ngettext("%(how)s · %(n)s round · %(seconds)s s to bet", "%(how)s · %(n)s rounds · %(seconds)s s to bet",
    st.rounds, { how, seconds: st.betting_seconds });
  const rows = st.players.map((p) => html`<li data-player="${p.player}">${avatar(p.player)}
    <span>${nameYou(p.player)}</span>${p.player === st.created_by ? html`<small>${gettext("HOST")}</small>` : ""}</li>`);
  if (st.players.length < 2) rows.push(html`<li class="ghost"><span class="av" aria-hidden="true"></span><span>${gettext("Waiting for a friend…")}</span></li>`);
  setHTML($("lobby-players"), html`${rows}`);
  const host = root.dataset.user === st.created_by;  // a supervisor who created the match starts it too
  $("start").hidden = !host;
  $("start").disabled = st.players.length < 2 || S.busy;
  $("lobby-wait").textContent = host
    ? (st.players.length < 2 ? gettext("A match needs at least 2 players: send your friends the code or the link.") : gettext("Everyone in? Start when you are ready."))
    : format(gettext("Waiting for %(name)s to start the match…"), { name: st.created_by });
}

/* ---- Results: the ranking in words, and the chart ---- */
export function renderResults(st) {
  const res = st.result || { ranking: [], winners: [] };
  const chips = st.scoring !== "points";
  let head;
  if (res.draw) head = gettext("A draw: everyone finished level");
  else if (res.shared) head = format(gettext("%(names)s share the win"), { names: names(res.winners.map(YouOr)) });
  else if (res.winners[0] === me()) head = gettext("You win!");
  else head = format(gettext("%(name)s wins!"), { name: res.winners[0] || "" });
  $("cup").innerHTML = res.draw ? DRAW_SVG : CUP_SVG;
  $("headline").textContent = head;
  const top = res.ranking[0];
  const parts = [
    chips ? gettext("Play-chips match") : gettext("Teaching match"),
    format(gettext("%(played)s of %(total)s rounds"), { played: st.rounds_played, total: st.rounds }),
  ];
  if (st.finished_at) parts.push(format(gettext("finished %(when)s"), { when: when(st.finished_at) }));
  if (res.early) parts.push(format(gettext("ended early: only %(name)s still had chips"), { name: youOr(res.winners[0] || "") }));
  if (top && !res.draw) {
    parts.push(chips ? format(gettext("top score %(chips)s chips"), { chips: money(top.chips, LOC) })
      : ngettext("top score %(n)s point", "top score %(n)s points", top.points));
  }
  $("subline").textContent = parts.join(" · ");
  const rows = res.ranking.map((r) => {
    const win = !res.draw && res.winners.includes(r.player);
    const net = chips && r.net != null ? html`<small class="net">${money(r.net, LOC, { signed: true })}</small>` : "";
    const where = res.draw ? gettext("level") : win ? (res.shared ? gettext("shared win") : gettext("winner")) : place(r.rank);
    return html`<li class="${win ? "win" : ""} ${r.player === me() ? "me" : ""}" data-testid="rank-${r.player}" data-rank="${r.rank}">
      <span class="rk${r.rank <= 3 && !res.draw ? " medal m" + r.rank : ""}">${r.rank}</span>${avatar(r.player)}
      <span class="nm">${nameYou(r.player)}</span>
      <span class="sc">${chips ? money(r.chips, LOC) : number(r.points, LOC)}<small>${chips ? gettext("chips") : gettext("points")}</small>${net}</span>
      <span class="st" data-status="${win ? "bet" : "idle"}">${where}</span></li>`;
  });
  setHTML($("ranking"), html`${rows}`);
  $("chart-title").textContent = chips ? gettext("Chips, round by round") : gettext("Points, round by round");
  drawChart(st);
}
export function drawChart(st) {
  const box = $("chart"), width = Math.round(box.clientWidth || 600);
  if (box.dataset.key === width + ":" + st.rounds_played && box.firstChild) return;
  box.dataset.key = width + ":" + st.rounds_played;
  const chips = st.scoring !== "points";
  const start = chips ? Number(cents(st.start_chips)) / 100 : 0;
  const series = st.players.map((p) => {
    let last = start;
    const points = [[0, start]];
    for (const h of p.history) {
      last = chips ? (h.chips != null ? Number(cents(h.chips)) / 100 : last) : h.points;
      points.push([h.n, last]);
    }
    return { name: p.player, color: colorOf(p.player), points };
  });
  const fmt = (v) => (chips ? money(decimal(BigInt(Math.round(v * 100))), LOC) : number(v, LOC));
  box.innerHTML = chartSVG({ series, width, chips, start, fmt });
  $("legend").innerHTML = String(html`${series.map((s) => html`<span style="--c:${s.color}">${nameYou(s.name)}</span>`)}`);
}
