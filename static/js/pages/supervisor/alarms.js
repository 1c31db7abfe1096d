// What calls the floor supervisor's attention (docs/SUPERVISOR.md, "Alarms"): a new incident, a
// table gone quiet (the floor's `stalled`), and a new integrity alert: a table's, a dealer's (on the
// tile of the table they deal), an operator's stuck wallet transactions (the strip above the tiles).
// Each raises an alarm: a short tone made with the Web Audio API (the head's toggle mutes it, and the
// choice is remembered), its tile flashing with the reason written on it and an Acknowledge button,
// the count of unacknowledged alarms in the tab's title, and the reason said in a live region. Only
// what is new raises one: what the first floor read and the stream's first snapshot show was there.
// Opening an incident, or acknowledging an integrity alert, acknowledges its alarm too.

import { html } from "../../html.js";
import { format, gettext } from "../../i18n.js";
import { $, on, state, tableName } from "./ui.js";
import { kindName } from "./words.js";

const MUTED = "sv-alarm-muted";  // localStorage
const alarms = new Map();  // key -> {key, table (id or null), reason}
const known = new Set();  // every key seen: alarmed, or there when the page loaded
const title = document.title;
const mute = $("#alarm-mute"), said = $("#alarm-live"), strip = $("#alarm-strip");
let floorRead = false, snapshotRead = false, fresh = [], sounds = 0, audio = null;

function remembered() { try { return localStorage.getItem(MUTED) === "1"; } catch { return false; } }
function setMuted(on) {
  mute.setAttribute("aria-pressed", String(on));
  try { localStorage.setItem(MUTED, on ? "1" : "0"); } catch { /* private mode: for this page only */ }
}
setMuted(remembered());
mute.addEventListener("click", () => setMuted(mute.getAttribute("aria-pressed") !== "true"));

/** A browser lets a page start its audio after a click or a key: the first one readies it. */
function ready() {
  try { audio = audio || new AudioContext(); if (audio.state === "suspended") audio.resume(); } catch { audio = null; }
  return audio;
}
document.addEventListener("pointerdown", ready, { once: true });
document.addEventListener("keydown", ready, { once: true });

/** Two short notes, falling (no sound file). The mute button counts the tones asked for. */
function tone() {
  if (mute.getAttribute("aria-pressed") === "true") return;
  mute.dataset.sounds = String(++sounds);
  const ctx = ready();
  if (!ctx) return;  // no Web Audio: the tile, the title and the live region still say it
  const t = ctx.currentTime, osc = ctx.createOscillator(), gain = ctx.createGain();
  osc.frequency.setValueAtTime(880, t);
  osc.frequency.setValueAtTime(660, t + 0.18);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.25, t + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.4);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t);
  osc.stop(t + 0.42);
}

/** Something seen: an alarm if it is new and the page had already read what was there. */
function seen(key, table, reason, quietly) {
  if (known.has(key)) return;
  known.add(key);
  if (quietly) return;
  alarms.set(key, { key, table, reason });
  fresh.push(table === null ? reason : `${tableName(table)}: ${reason}`);
}

function sound() {
  if (!fresh.length) return;
  said.textContent = fresh.join(" · ");
  fresh = [];
  tone();
}

/** Acknowledge alarms: they stop flashing and leave the title's count. */
export function acknowledge(keys) {
  for (const k of keys) alarms.delete(k);
  render();
}

function paint(box, list) {
  let slot = box.querySelector(":scope > .alarm-box");
  if (!list.length) { delete box.dataset.alarm; if (slot) slot.remove(); return; }
  const keys = list.map((a) => a.key).join(" ");
  if (slot && slot.dataset.keys === keys) return;
  if (!slot) { slot = document.createElement("div"); slot.className = "alarm-box"; box.insertBefore(slot, box.children[1] || null); }
  const more = !slot.dataset.keys || list.some((a) => !slot.dataset.keys.split(" ").includes(a.key));
  slot.dataset.keys = keys;
  slot.innerHTML = String(html`<ul>${list.map((a) => html`<li>${a.reason}</li>`)}</ul>
    <button type="button" class="small alarm-ack" data-keys="${keys}">${gettext("Acknowledge")}</button>`);
  if (more) { delete box.dataset.alarm; void box.offsetWidth; }  // a new alarm flashes again
  box.dataset.alarm = "on";
}

function render() {
  const n = alarms.size, all = [...alarms.values()];
  document.title = n ? `(${n}) ${title}` : title;
  const tiles = new Map([...document.querySelectorAll("#tiles .tile")].map((el) => [el.dataset.table, el]));
  for (const [id, el] of tiles) paint(el, all.filter((a) => String(a.table) === id));
  const loose = all.filter((a) => !tiles.has(String(a.table)));
  paint(strip, loose);
  strip.hidden = !loose.length;
}

document.addEventListener("click", (e) => {
  const b = e.target.closest(".alarm-ack");
  if (b) acknowledge(b.dataset.keys.split(" "));
});

on("floor", (tables) => {
  const quietly = !floorRead;
  floorRead = true;
  for (const t of tables) {
    for (const i of t.incidents) {
      seen(`incident:${i.id}`, t.id, format(gettext("Incident #%(id)s · %(kind)s"), { id: i.id, kind: kindName(i.kind) }), quietly);
    }
    const r = t.round;
    if (r && r.stalled) seen(`quiet:${r.id}`, t.id, format(gettext("Quiet table: no card in round #%(id)s for longer than expected"), { id: r.id }), quietly);
  }
  sound();
  render();
});
// Raised from this page, or opened: the supervisor knows of it.
on("incident-raised", (id) => known.add(`incident:${id}`));
on("open-incident", (id) => { known.add(`incident:${id}`); if (alarms.has(`incident:${id}`)) acknowledge([`incident:${id}`]); });

/** integrity.js: the stream's alerts ({alert, reason}), `snapshot` when it is the list of open ones. */
on("integrity-alerts", ({ list, snapshot }) => {
  const quietly = snapshot && !snapshotRead;
  if (snapshot) snapshotRead = true;
  for (const { alert: a, reason } of list) {
    const dealing = a.subject === "dealer" && state.tables.find((t) => t.on_shift && t.on_shift.dealer === a.name);
    seen(`alert:${a.id}`, a.subject === "table" ? a.table : dealing ? dealing.id : null, reason, quietly);
  }
  sound();
  render();
});
on("integrity-acknowledged", (id) => acknowledge([`alert:${id}`]));
