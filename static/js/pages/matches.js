// Play with friends (/matches/): create a match, join one by its code, and the list of my matches.
// Everything goes through the matches API (matches/api.py); see docs/MATCHES.md.

import { client, pageToken } from "../api.js";
import { html } from "../html.js";
import { format, gettext, ngettext, pgettext } from "../i18n.js";
import { when } from "../time.js";
import { names } from "./match/words.js";

const api = client({ token: pageToken("match-token") });
const $ = (id) => document.getElementById(id);

function explain(e) {
  const extra = Object.values(e.fields || {}).flat().filter((m) => m !== e.message);
  return [e.message || gettext("Something went wrong.")].concat(extra).join(" ");
}

/** What a code box may hold: capitals and digits, six at most. */
function cleanCode(text) {
  return String(text).toUpperCase().replace(/[^A-Z0-9]/g, "").slice(0, 6);
}

$("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const btn = $("create-btn");
  btn.disabled = true; btn.textContent = gettext("Creating…");
  $("create-error").textContent = "";
  try {
    const m = await api("POST", "matches/", {
      scoring: form.get("scoring"), rounds: Number(form.get("rounds")), betting_seconds: Number(form.get("betting_seconds")),
    });
    location.href = `/matches/${m.id}/`;
  } catch (e) {
    $("create-error").textContent = explain(e);
    btn.disabled = false; btn.textContent = gettext("Create match");
  }
});

const code = $("code");
code.addEventListener("input", () => {
  const clean = cleanCode(code.value);
  if (clean !== code.value) code.value = clean;
  $("join-error").textContent = "";
});
$("join").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const value = cleanCode(code.value);
  if (value.length !== 6) { $("join-error").textContent = gettext("A match code has 6 letters and digits."); code.focus(); return; }
  try {
    const m = await api("POST", "matches/join/", { code: value });
    location.href = `/matches/${m.id}/`;
  } catch (e) { $("join-error").textContent = explain(e); }
});

function describe(m) {
  const who = (name) => (m.me && name === m.me.player ? pgettext("the reader", "you") : name);
  if (m.status === "lobby") return format(gettext("waiting to start · %(n)s of %(max)s in"), { n: m.players.length, max: 6 });
  if (m.status === "running") {
    return format(gettext("round %(n)s of %(total)s · started %(when)s"),
      { n: Math.min(m.rounds_played + 1, m.rounds), total: m.rounds, when: when(m.started_at) });
  }
  const r = m.result || {};
  const ended = m.finished_at ? format(gettext("finished %(when)s"), { when: when(m.finished_at) }) : "";
  const winners = names((r.winners || []).map(who));
  const how = r.draw ? gettext("a draw") : r.shared ? format(gettext("shared win: %(names)s"), { names: winners })
    : format(gettext("won by %(names)s"), { names: winners });
  return ended ? format(gettext("%(result)s, %(when)s"), { result: how, when: ended }) : how;
}
const STATUS = { lobby: () => gettext("Lobby"), running: () => gettext("Playing"), finished: () => gettext("Finished") };

async function loadMine() {
  const list = $("mine");
  try {
    const rows = await api("GET", "matches/");
    if (!rows.length) {
      list.innerHTML = String(html`<li class="empty">${gettext("No matches yet. Create one and send the code to a friend.")}</li>`);
      return;
    }
    list.innerHTML = String(html`${rows.map((m) => {
      const players = names(m.players.map((p) => (m.me && p.player === m.me.player ? pgettext("the reader", "you") : p.player)));
      const kind = m.scoring === "points" ? gettext("Teaching") : gettext("Play chips");
      const what = ngettext("%(kind)s · %(n)s round · %(state)s", "%(kind)s · %(n)s rounds · %(state)s", m.rounds, { kind, state: describe(m) });
      return html`<li data-code="${m.code}"><a href="/matches/${m.id}/"><span class="mcode">${m.code}</span>
        <span class="what">${what}<br><small>${players}</small></span>
        <span class="pill ${m.status}" data-testid="match-status">${STATUS[m.status] ? STATUS[m.status]() : m.status}</span></a></li>`;
    })}`);
  } catch (e) {
    list.innerHTML = String(html`<li class="empty">${explain(e)}</li>`);
  }
}
loadMine();
