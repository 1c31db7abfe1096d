// Betting from the player page: the chip rack (a radio group: arrow keys move the choice, one tab
// stop), a bet on a spot, taking one back, and the rack's Undo, Clear, Double and Repeat. Every
// request is the bets API's (bets/urls.py): POST rounds/{id}/bets/ with its own Idempotency-Key,
// DELETE bets/{id}/, POST rounds/{id}/bets/repeat/. Whether a bet is allowed is the server's
// answer; a refusal is shown as it comes.

import { newKey } from "../../api.js";
import { format, gettext } from "../../i18n.js";
import { cents, decimal } from "../../money.js";
import { addBet, dropBet, openBets } from "./state.js";
import { chipClass, chipLabel } from "./render.js";

const DENOMS = ["1", "5", "10", "25", "50", "100", "250", "500", "1000", "5000"];

/** The chips a table offers: the usual denominations between its limits, in its chip unit (the
 *  least stake first), six at most. BigInt hundredths. */
export function chipValues(table) {
  const unit = cents(table.chip_unit) || 1n, lo = cents(table.min_bet), hi = cents(table.max_bet);
  let values = DENOMS.map(cents).filter((v) => v >= lo && v <= hi && v % unit === 0n);
  if (!values.includes(lo)) values.unshift(lo);
  return values.slice(0, 6);
}

/** The next chip for an arrow key in the radio group (wraps around), or null for another key. */
export function chipKey(key, index, count) {
  if (key === "ArrowRight" || key === "ArrowDown") return (index + 1) % count;
  if (key === "ArrowLeft" || key === "ArrowUp") return (index - 1 + count) % count;
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return null;
}

export function setupBetting({ S, api, bettingOpen, redraw, showError, hideError }) {
  const chips = document.getElementById("chips");
  if (!chips) return { setupChips() {} };

  function setupChips() {
    if (!S.table) return;
    const values = chipValues(S.table);
    const key = values.join(",");
    if (chips.dataset.values === key) return;
    chips.dataset.values = key;
    chips.innerHTML = values.map((v) => `<button type="button" role="radio" class="chip ${chipClass(v)}" data-value="${v}" data-testid="chip-${decimal(v)}" aria-checked="false" tabindex="-1" aria-label="${format(gettext("Chip %(amount)s"), { amount: chipLabel(v) })}">${chipLabel(v)}</button>`).join("");
    if (!values.includes(S.chip)) S.chip = values[Math.min(1, values.length - 1)];
  }

  function choose(button, focus) {
    S.chip = BigInt(button.dataset.value);
    redraw();
    if (focus) button.focus();
  }
  chips.addEventListener("click", (e) => { const b = e.target.closest(".chip"); if (b) choose(b, false); });
  chips.addEventListener("keydown", (e) => {
    const all = [...chips.querySelectorAll(".chip")];
    const i = all.indexOf(e.target.closest(".chip"));
    if (i < 0) return;
    const next = chipKey(e.key, i, all.length);
    if (next === null) return;
    e.preventDefault();
    choose(all[next], true);
  });

  async function place(spot, amount = S.chip) {
    if (!bettingOpen() || !amount) return;
    const roundId = S.round.id;
    const btn = document.querySelector(`#board .spot[data-spot="${spot}"]`);
    if (btn) btn.classList.add("busy");
    try {
      const bet = await api("POST", `rounds/${roundId}/bets/`, { spot, amount: decimal(amount) }, { "Idempotency-Key": newKey("play") });
      addBet(S, { id: bet.id, round: bet.round, spot: bet.spot, amount: bet.amount, status: bet.status, balance: bet.balance });
      hideError();
    } catch (e) { showError(e); throw e; } finally { if (btn) btn.classList.remove("busy"); redraw(); }
  }
  async function takeBack(id) {
    try {
      const me = await api("DELETE", `bets/${id}/`);
      dropBet(S, id, me.balance);
      hideError();
    } catch (e) { showError(e); throw e; } finally { redraw(); }
  }
  async function repeat() {
    if (!S.round) return;
    const roundId = S.round.id;
    try {
      const bets = await api("POST", `rounds/${roundId}/bets/repeat/`);
      for (const bet of bets) addBet(S, { id: bet.id, round: bet.round, spot: bet.spot, amount: bet.amount, status: bet.status, balance: bet.balance });
      hideError();
    } catch (e) { showError(e); } finally { redraw(); }
  }
  /** Double: each of this round's open bets once more, the same spot and amount (the server may
   *  refuse one, e.g. over the table's limit: the ones before it stand, and the refusal is shown). */
  async function double() {
    const bets = openBets(S).map((b) => ({ spot: b.spot, amount: cents(b.amount) }));
    for (const b of bets) {
      try { await place(b.spot, b.amount); } catch { return; }
    }
  }
  /** Clear: take back every open bet of this round. */
  async function clear() {
    for (const b of openBets(S)) {
      try { await takeBack(b.id); } catch { return; }
    }
  }

  document.getElementById("board").addEventListener("click", (e) => {
    const b = e.target.closest(".spot");
    if (b && !b.disabled) place(b.dataset.spot).catch(() => {});
  });
  document.getElementById("mybets").addEventListener("click", (e) => {
    const b = e.target.closest("[data-testid=take-back]");
    if (b) takeBack(Number(b.dataset.bet)).catch(() => {});
  });
  document.getElementById("undo").addEventListener("click", () => {
    const mine = openBets(S);
    if (mine.length) takeBack(mine[mine.length - 1].id).catch(() => {});
  });
  document.getElementById("clear").addEventListener("click", clear);
  document.getElementById("double").addEventListener("click", double);
  document.getElementById("repeat").addEventListener("click", repeat);
  return { setupChips };
}
