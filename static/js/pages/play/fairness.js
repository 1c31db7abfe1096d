// Fairness on a virtual dealer's table (#fairness): this round's commitment, published before betting
// opened, and once a round is over its revealed salt and pack with a "Verify" button that checks
// them in the browser (static/js/fairness.js, docs/FAIRNESS.md). Rounds come from the API
// (GET /api/tables/{id}/rounds/, /api/rounds/{id}/) and the page's "play:event"s.

import { verify } from "../../fairness.js";
import { html } from "../../html.js";
import { format, gettext, ngettext } from "../../i18n.js";

const OPEN = ["betting", "dealing", "paused"];
const OVER = ["finished", "settled", "voided"];

/** What a check found, in words: {ok, title, reasons}. */
export function proofReport(result, proof) {
  if (result.ok) {
    return {
      ok: true,
      title: gettext("Verified"),
      reasons: [ngettext(
        "The salt and the pack give the commitment published before betting opened, the pack is 52 different cards, and the joker and the %(n)s card dealt are its first cards, in order.",
        "The salt and the pack give the commitment published before betting opened, the pack is 52 different cards, and the joker and the %(n)s cards dealt are its first cards, in order.",
        proof.cards.length)],
    };
  }
  const reasons = [];
  if (!result.checks.commitment) reasons.push(gettext("The salt and the pack do not give the published commitment."));
  if (!result.checks.pack) reasons.push(gettext("The pack is not 52 different cards."));
  if (!result.checks.joker) reasons.push(gettext("The joker is not the pack's first card."));
  if (!result.checks.cards) reasons.push(gettext("The cards dealt are not the pack's next cards, in order."));
  return { ok: false, title: gettext("Does not match"), reasons };
}

/** The text a status line reads out. */
export function proofMessage(result, proof) {
  const report = proofReport(result, proof);
  return report.title + ": " + report.reasons.join(" ");
}

/** A round's proof as the checker takes it, from the round detail of the API. */
export function proofOf(round) {
  const f = round.fairness || {};
  return {
    commitment: f.commitment, salt: f.salt, pack: f.pack, joker: round.joker,
    cards: [...round.cards].sort((a, b) => a.position - b.position).map((c) => c.card),
  };
}

function currentHTML(current) {
  if (!current) return html`<p class="muted">${gettext("The next round's commitment appears when it opens.")}</p>`;
  return html`<h3 class="gi-sub">${format(gettext("Round %(id)s"), { id: current.round })}</h3>
    <p>${gettext("Commitment, published before betting opened:")}</p>
    <p><code class="gi-hash" data-testid="fair-commitment">${current.commitment}</code></p>
    <p class="muted">${gettext("The salt and the shuffled pack are revealed when the round is over.")}</p>`;
}

function revealedHTML(round) {
  if (!round) return "";
  const f = round.fairness;
  return html`<h3 class="gi-sub">${format(gettext("Round %(id)s: revealed"), { id: round.id })}</h3>
    <dl class="gi-proof" data-testid="fair-revealed" data-round="${round.id}">
      <dt>${gettext("Commitment")}</dt><dd><code class="gi-hash">${f.commitment}</code></dd>
      <dt>${gettext("Salt")}</dt><dd><code>${f.salt}</code></dd>
      <dt>${gettext("Pack")}</dt><dd><code class="gi-pack">${f.pack}</code></dd>
    </dl>
    <button type="button" class="secondary" data-testid="fair-verify">${gettext("Verify")}</button>
    <div class="gi-verdict" role="status" data-testid="fair-result"></div>`;
}

/** Fills #fairness and keeps it current. */
export function mountFairness(section, { api, table, on }) {
  const current = document.createElement("div");
  const revealed = document.createElement("div");
  current.className = "gi-fair-current";
  revealed.className = "gi-fair-revealed";
  section.append(current, revealed);
  const state = { current: null, revealed: null };

  // Each half is drawn only when its own round changes: a verdict being worked out, or read, stays on
  // screen when the next round opens or a second event for the same round arrives.
  function drawCurrent() {
    current.innerHTML = String(currentHTML(state.current));
  }
  function drawRevealed() {
    revealed.innerHTML = String(revealedHTML(state.revealed));
  }

  revealed.addEventListener("click", async (e) => {
    const button = e.target.closest("button");
    const round = state.revealed;
    if (!button || !round) return;
    const out = revealed.querySelector(".gi-verdict");
    button.disabled = true;
    const proof = proofOf(round);
    const report = proofReport(await verify(proof), proof);
    if (state.revealed !== round) return;  // a later round was revealed meanwhile: this verdict is not its
    out.dataset.ok = String(report.ok);
    out.innerHTML = String(html`<strong>${report.title}</strong> ${report.reasons.join(" ")}`);
    button.disabled = false;
  });

  async function reveal(roundId) {
    if (state.revealed && state.revealed.id >= roundId) return;
    try {
      const round = await api("GET", `rounds/${roundId}/`);
      if (!round.fairness || !round.fairness.salt) return;
      if (state.revealed && state.revealed.id >= round.id) return;  // another event's read, or a later round's, got here first
      state.revealed = round;
      drawRevealed();
      if (state.current && state.current.round === round.id) {
        state.current = null;
        drawCurrent();
      }
    } catch (e) {
      /* the next event or a reload tries again */
    }
  }

  on("play:event", (event) => {
    if (event.type === "round.opened" && event.commitment) {
      state.current = { round: event.round, commitment: event.commitment };
      drawCurrent();
    } else if (OVER.some((status) => event.type === `round.${status}`)) {
      reveal(event.round);
    }
  });

  return (async () => {
    try {
      const rounds = await api("GET", `tables/${table}/rounds/?last=2`);  // the round under way and the one before it
      const open = rounds.find((r) => OPEN.includes(r.status) && r.fairness);
      if (open && !state.current) state.current = { round: open.id, commitment: open.fairness.commitment };
      const over = rounds.find((r) => OVER.includes(r.status) && r.fairness && r.fairness.salt);
      if (over && !state.revealed) {  // unless an event revealed a round while this read was under way
        state.revealed = over;
        drawRevealed();
      }
    } catch (e) {
      /* shown empty; the stream's events fill it */
    }
    drawCurrent();
  })();
}
