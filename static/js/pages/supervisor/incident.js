// One incident: its round (joker, cards with their positions, the match), bets per spot, players,
// notes, corrections (a dealt card is picked by clicking it, or with the keyboard), resume, void
// (a required reason, then a confirm step) and, once voided, the refunds. The Resume and Void bar
// stays in view (sticky) while the incident is on screen.

import { cardHTML, cardName } from "../../cards.js";
import { esc, html } from "../../html.js";
import { format, gettext, locale, ngettext } from "../../i18n.js";
import { cents, money, sum } from "../../money.js";
import { when } from "../../time.js";
import { $, api, emit, hideToast, on, showError, showOk, state, tableName } from "./ui.js";
import { kindName, sideName, spotName, statusName } from "./words.js";

const panel = $("#detail"), body = $("#detail-body"), empty = $("#detail-empty");
const amount = (v, opts = {}) => money(v, locale(), { places: 2, ...opts });
let cur = null;          // the incident as last loaded
let refundsFor = null;   // the round whose refunds are shown

export async function openIncident(id) {
  state.currentIncident = id;
  resetForms();
  try {
    await load(id);
    empty.hidden = true; body.hidden = false;
    emit("current-incident", id);
    const top = panel.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight / 3) panel.scrollIntoView({ block: "start" });
  } catch (e) { showError(e); }
}

export function closeIncident() {
  state.currentIncident = null; cur = null; refundsFor = null;
  body.hidden = true; empty.hidden = false; panel.dataset.state = "empty";
  emit("current-incident", null);
}

$("#detail-close").addEventListener("click", closeIncident);
on("open-incident", openIncident);
/* The incident is read again only when the floor shows its table changed (round, cards, bets, the
   incident's notes or status): a refresh stays one request. */
let seenKey = "";
function floorKey(tables) {
  const t = cur && tables.find((x) => x.id === cur.table);
  if (!t) return "";
  const inc = t.incidents.find((i) => i.id === cur.id);
  const r = t.round;
  return JSON.stringify([r && [r.id, r.status, r.cards_dealt, r.last_card_at, r.bets, r.staked], inc ? inc.notes : "closed"]);
}
on("floor", (tables) => {
  if (!cur) return;
  const key = floorKey(tables);
  if (key !== seenKey) { seenKey = key; load(cur.id).catch(() => {}); }
});

function resetForms() {
  for (const id of ["#note-text", "#replace-pos", "#replace-card", "#resume-text", "#void-reason"]) $(id).value = "";
  $("#void-confirm").hidden = true;
  $("#refunds").hidden = true;
  $("#picked").textContent = "";
  refundsFor = null;
}

async function load(id) {
  const d = await api("GET", `incidents/${id}/`);
  if (state.currentIncident !== id) return;
  cur = d;
  seenKey = floorKey(state.tables);
  render(d);
  if (d.round_detail.status === "voided" && refundsFor !== d.round) await loadRefunds(d.round);
}

function correctable(d) {
  return d.status === "open" && !d.round_detail.fairness && !d.round_detail.settings.match;
}

function render(d) {
  const r = d.round_detail, currency = (r.settings && r.settings.currency) || "";
  panel.dataset.state = d.status;
  panel.dataset.incident = d.id;
  $("#detail-title").textContent = format(gettext("Incident #%(id)s · %(kind)s"), { id: d.id, kind: kindName(d.kind) });
  const sub = [format(gettext("Round #%(round)s at %(table)s · raised by %(who)s at %(time)s"),
    { round: r.id, table: tableName(r.table), who: d.raised_by, time: when(d.created_at) })];
  if (r.dealer) sub.push(format(gettext("dealt by %(dealer)s"), { dealer: r.dealer }));
  sub.push(format(gettext("first card to %(side)s"), { side: sideName(r.first_side) }));
  $("#detail-sub").textContent = sub.join(" · ");
  setPill("#detail-inc-pill", d.status, format(gettext("incident %(status)s"), { status: statusName(d.status) }));
  setPill("#detail-round-pill", r.status, format(gettext("round %(status)s"), { status: statusName(r.status) }));

  const pick = correctable(d);
  const key = JSON.stringify([r.joker, r.cards, r.winner, pick]);
  if ($("#board").dataset.key !== key) {
    $("#board").dataset.key = key;
    $("#board-joker").innerHTML = cardHTML(r.joker);
    const last = r.cards.length ? r.cards[r.cards.length - 1].position : 0;
    for (const side of ["andar", "bahar"]) {
      const cards = r.cards.filter((c) => c.side === side);
      $(`#cards-${side}`).innerHTML = cards.length
        ? cards.map((c) => {
          const face = cardHTML(c.card, { pos: c.position, match: r.winner === side && c.position === last });
          if (!pick) return face;
          // Named by the card inside it ("9 of diamonds, position 2": its visible face, WCAG 2.5.3) and
          // described by the hint above the board that says a click corrects it.
          return String(html`<button type="button" class="pick" data-position="${c.position}" data-card="${c.card}" aria-pressed="false" aria-describedby="pick-hint">`) + face + "</button>";
        }).join("")
        : String(html`<span class="none-yet">${gettext("No card yet")}</span>`);
      document.querySelector(`.lane[data-side=${side}]`).classList.toggle("won", r.winner === side);
    }
    markPicked();
  }
  $("#pick-hint").hidden = !pick || !r.cards.length;

  let n = 0;
  $("#spots-table tbody").innerHTML = String(d.bets_per_spot.length
    ? html`${d.bets_per_spot.map((s) => { n += s.count; return html`<tr data-spot="${s.spot}"><td>${spotName(s.spot)}</td><td>${s.count}</td><td>${amount(s.staked)}</td><td>${amount(s.paid)}</td></tr>`; })}`
    : html`<tr><td colspan="4" class="muted">${gettext("No bets in this round.")}</td></tr>`);
  const staked = sum(d.bets_per_spot.map((s) => s.staked)), paid = sum(d.bets_per_spot.map((s) => s.paid));
  $("#spots-table tfoot").innerHTML = String(d.bets_per_spot.length
    ? html`<tr><td>${format(gettext("Total %(currency)s"), { currency })}</td><td>${n}</td><td>${amount(staked)}</td><td>${amount(paid)}</td></tr>` : "");
  $("#players-table tbody").innerHTML = String(d.players.length
    ? html`${d.players.map((p) => html`<tr data-player="${p.player}"><td>${p.player}</td><td>${p.bets}</td><td>${amount(p.staked)}</td></tr>`)}`
    : html`<tr><td colspan="3" class="muted">${gettext("No players.")}</td></tr>`);
  cur.totals = { bets: n, staked, players: d.players.length, currency };

  const notesKey = JSON.stringify(d.notes);
  if ($("#notes").dataset.key !== notesKey) {
    $("#notes").dataset.key = notesKey;
    $("#notes").innerHTML = String(d.notes.length
      ? html`${d.notes.map((x) => html`<li><small>${x.by} · ${when(x.at)}</small>${x.text}</li>`)}`
      : html`<li class="none-yet">${gettext("No notes yet.")}</li>`);
  }

  const open = d.status === "open";
  $("#corrections").hidden = !pick;
  $("#resolve").hidden = !open;
  $("#remove-last").disabled = r.status !== "paused";
  $("#remove-last").title = r.status === "paused" ? gettext("Removes the last dealt card") : gettext("Only while the round is paused");
  const note = $("#resolved-note");
  note.hidden = open;
  if (!open) {
    note.textContent = format(d.status === "voided" ? gettext("Voided by %(who)s at %(time)s: %(text)s") : gettext("Resolved by %(who)s at %(time)s: %(text)s"),
      { who: d.resolved_by || "—", time: when(d.resolved_at), text: d.resolution });
  }
}

function setPill(sel, status, text) { const el = $(sel); el.dataset.status = status; el.textContent = text; }

/* Picking a card to correct: the card's position goes into the form, the card field gets the focus. */
function markPicked() {
  const pos = $("#replace-pos").value;
  for (const b of document.querySelectorAll("#board .pick")) b.setAttribute("aria-pressed", String(b.dataset.position === pos));
}
$("#board").addEventListener("click", (e) => {
  const b = e.target.closest(".pick");
  if (!b) return;
  $("#replace-pos").value = b.dataset.position;
  $("#picked").textContent = format(gettext("Correcting card %(position)s (%(card)s): type the right card and press Enter."),
    { position: b.dataset.position, card: cardName(b.dataset.card) });
  markPicked();
  $("#replace-card").focus();
});
$("#replace-pos").addEventListener("input", markPicked);

/* Run one action: disable its button, show the refusal if any, reload the incident and say what changed. */
async function act(button, fn) {
  button.disabled = true;
  hideToast();
  try { await fn(); } catch (e) { showError(e); } finally {
    button.disabled = false;
    if (cur) await load(cur.id).catch(showError);
    emit("changed");
  }
}

$("#note-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("#note-text").value;
  act($("#note-add"), async () => {
    await api("POST", `incidents/${cur.id}/notes/`, { text });
    $("#note-text").value = "";
  });
});

$("#replace-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const position = Number($("#replace-pos").value), card = $("#replace-card").value.trim();
  act($("#replace-btn"), async () => {
    const r = await api("POST", `rounds/${cur.round}/corrections/replace/`, { position, card });
    $("#replace-pos").value = ""; $("#replace-card").value = ""; $("#picked").textContent = "";
    showOk(format(gettext("Card %(position)s is now %(card)s (round #%(round)s, %(status)s)."),
      { position, card: card.toUpperCase(), round: r.id, status: statusName(r.status) }));
  });
});

$("#remove-last").addEventListener("click", (e) => act(e.currentTarget, async () => {
  const r = await api("POST", `rounds/${cur.round}/corrections/remove-last/`);
  showOk(format(ngettext("Last card removed: round #%(round)s has %(n)s card.", "Last card removed: round #%(round)s has %(n)s cards.", r.cards_dealt), { round: r.id }));
}));

$("#resume-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const resolution = $("#resume-text").value;
  act($("#resume-btn"), async () => {
    const inc = await api("POST", `incidents/${cur.id}/resume/`, { resolution });
    showOk(format(gettext("Incident #%(id)s resolved: round #%(round)s is %(status)s."), { id: inc.id, round: inc.round, status: statusName(inc.round_status) }));
  });
});

/* Void: a required reason, then a confirm step naming what will be refunded. */
$("#void-form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (!$("#void-reason").value.trim()) {
    showError(new Error(gettext("Write the reason for the void first: players and auditors read it.")));
    $("#void-reason").focus();
    return;
  }
  const t = cur.totals;
  $("#void-confirm-text").textContent = format(
    gettext("Void round #%(round)s at %(table)s? %(bets)s (%(amount)s %(currency)s) of %(players)s will be refunded. This cannot be undone."),
    { round: cur.round, table: tableName(cur.table), bets: ngettext("%(n)s bet", "%(n)s bets", t.bets), amount: amount(t.staked),
      currency: t.currency, players: ngettext("%(n)s player", "%(n)s players", t.players) });
  hideToast();
  $("#void-confirm").hidden = false;
  $("#void-yes").focus();
});
$("#void-no").addEventListener("click", () => { $("#void-confirm").hidden = true; });
$("#void-yes").addEventListener("click", (e) => act(e.currentTarget, async () => {
  const inc = await api("POST", `incidents/${cur.id}/void/`, { reason: $("#void-reason").value });
  $("#void-confirm").hidden = true; $("#void-reason").value = "";
  await loadRefunds(inc.round);
  showOk(format(gettext("Round #%(round)s voided: every bet refunded."), { round: inc.round }));
  $("#refunds").scrollIntoView({ block: "nearest" });
}));

/* The refunds of a voided round: the bets (refunded, stake back) and each one's ledger entry. */
async function loadRefunds(roundId) {
  refundsFor = roundId;
  const [bets, audit] = await Promise.all([api("GET", `rounds/${roundId}/bets/`), api("GET", `rounds/${roundId}/audit/`)]);
  const voided = audit.filter((ev) => ev.action === "voided").pop();
  const refunded = bets.bets.filter((b) => b.status === "refunded");
  const players = [...new Set(refunded.map((b) => b.player))].slice(0, 25);
  const ledgers = await Promise.all(players.map((p) => api("GET", `me/ledger/?player=${encodeURIComponent(p)}`).catch(() => null)));
  const entryOf = {};
  ledgers.forEach((l) => (l ? l.results : []).forEach((x) => { if (x.kind === "refund" && x.round === roundId && x.bet) entryOf[x.bet] = x; }));
  const currency = (cur && cur.round_detail.settings.currency) || "";
  const count = voided ? voided.data.bets : refunded.length;
  const total = voided ? cents(voided.data.refunded) : sum(refunded.map((b) => b.payout));
  const text = esc(ngettext("%(count)s bet refunded · %(total)s %(currency)s back to %(players)s",
    "%(count)s bets refunded · %(total)s %(currency)s back to %(players)s", count));
  $("#refund-sum").innerHTML = format(text, {
    count: String(html`<span data-f="count">${count}</span>`), total: String(html`<span data-f="total">${amount(total)}</span>`),
    currency: esc(currency), players: esc(ngettext("%(n)s player", "%(n)s players", players.length)),
  }) + String(voided ? html`<br><small class="muted">${format(gettext("Voided by %(who)s at %(time)s: %(reason)s"),
    { who: voided.actor, time: when(voided.at), reason: voided.data.reason })}</small>` : "");
  $("#refunds-table tbody").innerHTML = String(refunded.length
    ? html`${refunded.map((b) => {
      const x = entryOf[b.id];
      return html`<tr data-bet="${b.id}"><td>${b.player}</td><td>${spotName(b.spot)}</td><td>${amount(b.amount)}</td><td>${amount(b.payout)}</td><td>#${b.id}</td><td>${x ? `#${x.id} · ${amount(x.amount, { signed: true })}` : "—"}</td></tr>`;
    })}`
    : html`<tr><td colspan="6" class="muted">${gettext("No bets were open in this round: nothing to refund.")}</td></tr>`);
  $("#refunds").hidden = false;
}
