// A replay of one round of "My history" (history.js): in a dialog, the joker, then each card onto
// the side the server recorded for it, in the order dealt, 0.8 s apart (at once under
// prefers-reduced-motion), then the result and the player's net. Everything shown is the round's
// row of GET /api/me/rounds/ as the server wrote it: the cards with their positions and sides, the
// winner, the void, staked, returned and net. Each step is said in the dialog's polite live region;
// Stop halts the deal, Close (or Escape) ends the replay and gives the focus back to its button.
// history.js loads this module, and it its style (static/css/replay.css), at the first Replay.

import { cardHTML, cardName } from "../../cards.js";
import { html } from "../../html.js";
import { format, gettext, locale } from "../../i18n.js";
import { money } from "../../money.js";
import { styleSheet } from "../../nearby.js";
import { sideName, spoken, winsLine } from "./words.js";

export const STEP_MS = 800;

/** The replay's steps: the joker, each card in the order dealt (by its position), then the end. */
export function replaySteps(round) {
  const cards = [...round.cards].sort((a, b) => a.position - b.position);
  return [
    { kind: "joker", card: round.joker },
    ...cards.map((c) => ({ kind: "card", card: c.card, side: c.side, position: c.position })),
    { kind: "end" },
  ];
}

/** The result as the replay ends: "Andar wins on card 7.", or the void and its reason. */
export function resultLine(round) {
  if (round.status === "voided") {
    return [gettext("Voided: your stakes were refunded."),
      round.void_reason ? format(gettext("Reason: %(reason)s"), { reason: round.void_reason }) : ""].filter(Boolean).join(" ");
  }
  return round.winner ? winsLine(round.winner, round.cards.length) + "." : gettext("In play");
}

/** "Staked 75 · came back 195 · net +120", the server's figures. */
export function netLine(round, lang = locale()) {
  const parts = [format(gettext("Staked %(amount)s"), { amount: money(round.staked, lang) })];
  if (round.net !== null && round.net !== undefined) {
    parts.push(format(gettext("came back %(amount)s"), { amount: money(round.returned, lang) }),
      format(gettext("net %(amount)s"), { amount: money(round.net, lang, { signed: true }) }));
  }
  return parts.join(" · ");
}

/** What the live region says for a step. */
export function stepSaid(step, round) {
  if (step.kind === "joker") return format(gettext("Replay of round %(id)s. Joker: %(card)s."), { id: round.round, card: cardName(step.card) });
  if (step.kind === "card") return spoken({ key: "card", side: step.side, position: step.position, card: step.card });
  return `${resultLine(round)} ${netLine(round)}`;
}

function dialog() {
  const box = document.createElement("dialog");
  box.className = "gi-replay mini";
  box.dataset.testid = "replay";
  box.setAttribute("aria-labelledby", "replay-h");
  box.innerHTML = String(html`<h2 id="replay-h"></h2>
    <div class="gi-replay-table">
      <div class="gi-replay-joker"><span class="label">${gettext("Joker")}</span><div data-slot="joker" data-testid="replay-joker"></div></div>
      ${["andar", "bahar"].map((side) => html`<div class="gi-replay-lane ${side}"><span class="label">${sideName(side)}</span><div class="cards" data-lane="${side}" data-testid="replay-${side}" role="group" aria-label="${side === "andar" ? gettext("Andar cards") : gettext("Bahar cards")}"></div></div>`)}
    </div>
    <div class="gi-replay-end" data-testid="replay-result" hidden><p class="result"></p><p class="net"></p></div>
    <div class="sr-only" aria-live="polite" data-testid="replay-announce"></div>
    <div class="gi-replay-actions">
      <button type="button" class="secondary" data-act="stop" data-testid="replay-stop">${gettext("Stop")}</button>
      <button type="button" class="secondary" data-act="again" data-testid="replay-again" hidden>${gettext("Replay again")}</button>
      <button type="button" data-act="close" data-testid="replay-close">${gettext("Close")}</button>
    </div>`);
  document.body.append(box);
  return box;
}

/** The replayer of the history: `await replay(round, opener)` opens the dialog and deals the round;
 *  `css` is the URL of its style sheet. */
export function replayer(css) {
  let box = null, timer = null, round = null, opener = null;
  const q = (sel) => box.querySelector(sel);
  const reduced = () => Boolean(globalThis.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);

  function show(step, animate) {
    if (step.kind === "joker") q("[data-slot=joker]").innerHTML = cardHTML(step.card, { cls: "joker" });
    else if (step.kind === "card") {
      const last = step.position === round.cards.length && Boolean(round.winner);
      q(`[data-lane=${step.side}]`).insertAdjacentHTML("beforeend", cardHTML(step.card, { pos: step.position, match: last, cls: animate ? "deal-in" : "" }));
    } else {
      q(".gi-replay-end .result").textContent = resultLine(round);
      q(".gi-replay-end .net").textContent = netLine(round);
      q(".gi-replay-end").hidden = false;
      finished();
    }
  }

  function finished() {
    clearTimeout(timer);
    timer = null;
    const stop = q("[data-act=stop]"), again = q("[data-act=again]");
    const focused = box.contains(document.activeElement) && document.activeElement === stop;
    stop.hidden = true;
    again.hidden = false;
    if (focused) again.focus();
  }

  function play() {
    clearTimeout(timer);
    for (const el of box.querySelectorAll("[data-slot], [data-lane]")) el.innerHTML = "";
    q(".gi-replay-end").hidden = true;
    q("[data-act=stop]").hidden = false;
    q("[data-act=again]").hidden = true;
    const say = q("[aria-live]");
    const steps = replaySteps(round);
    if (reduced()) {
      steps.forEach((step) => show(step, false));
      say.textContent = stepSaid(steps[0], round) + " " + stepSaid(steps[steps.length - 1], round);
      return;
    }
    let i = 0;
    const next = () => {
      const step = steps[i++];
      show(step, true);
      say.textContent = stepSaid(step, round);
      if (i < steps.length) timer = setTimeout(next, STEP_MS);
    };
    next();
  }

  function focusControl() {  // Stop while dealing, else Replay again
    (q("[data-act=stop]").hidden ? q("[data-act=again]") : q("[data-act=stop]")).focus();
  }

  function stop() {
    finished();
    q("[aria-live]").textContent = gettext("Replay stopped.");
  }

  return async function replay(row, button) {
    await styleSheet(css);
    if (!box) {
      box = dialog();
      box.addEventListener("click", (e) => {
        const act = e.target.closest("[data-act]")?.dataset.act;
        if (act === "stop") stop();
        else if (act === "again") { play(); focusControl(); }
        else if (act === "close") box.close();
      });
      box.addEventListener("close", () => {
        clearTimeout(timer);
        timer = null;
        // Back to the button that opened it, or to the same round's button where the list was drawn again meanwhile.
        const back = opener && opener.isConnected ? opener : document.querySelector(`[data-replay="${round.round}"]`);
        if (back) back.focus();
      });
    }
    round = row;
    opener = button;
    q("#replay-h").textContent = format(gettext("Replay of round %(id)s"), { id: row.round });
    if (!box.open) box.showModal();
    play();
    focusControl();
  };
}
