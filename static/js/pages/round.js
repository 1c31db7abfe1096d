// The round page's checks in the browser: against the data the page was rendered with, a virtual
// dealer's fairness proof (its "Verify" button, static/js/fairness.js), and at a table with random
// multipliers that the revealed seed hashes to the commitment published when the round opened; and,
// as the page loads, the round's leaves in the public log (static/js/publiclog.js) from the log part of
// the round's record (as GET /api/rounds/{id}/record/ gives it, carried by the page in #round-log:
// the whole record would bring the audit trail a second time) and the studio's key (GET
// /api/log/key/): each inclusion proof leads to the checkpoint's root, and the checkpoint's signature
// verifies with the key.
import { proofMessage } from "./play/fairness.js";
import { html } from "../html.js";
import { format, gettext, ngettext } from "../i18n.js";
import { verify, verifySeed } from "../fairness.js";
import { checkLog, toBase64 } from "../publiclog.js";

const button = document.getElementById("verify");
const out = document.getElementById("verify-result");
const data = document.getElementById("round-proof");
if (button && out && data) {
  const proof = JSON.parse(data.textContent);
  button.addEventListener("click", async () => {
    button.disabled = true;
    const result = await verify(proof);
    out.dataset.ok = String(result.ok);
    out.textContent = proofMessage(result, proof);
    button.disabled = false;
  });
}

const seedButton = document.getElementById("verify-seed");
const seedOut = document.getElementById("verify-seed-result");
const seedData = document.getElementById("round-seed");
if (seedButton && seedOut && seedData) {
  const seed = JSON.parse(seedData.textContent);
  seedButton.addEventListener("click", async () => {
    seedButton.disabled = true;
    const result = await verifySeed(seed);
    seedOut.dataset.ok = String(result.ok);
    seedOut.textContent = result.ok
      ? gettext("Checked: the seed's SHA-256 is the commitment published when the round opened.")
      : format(gettext("Not the commitment: the seed's SHA-256 is %(hash)s."), { hash: result.hash || "—" });
    seedButton.disabled = false;
  });
}

const logSection = document.getElementById("public-log");
const logOut = document.getElementById("log-result");
if (logSection && logOut && logSection.querySelector("[data-index]")) checkPublicLog();

/** The key's text from GET /api/log/key/ (text/plain, public). */
async function fetchKey() {
  const res = await fetch("/api/log/key/", { credentials: "omit" });
  if (!res.ok) throw new Error(gettext("The studio's key could not be fetched.") + ` (${res.status})`);
  return res.text();
}

async function checkPublicLog() {
  logOut.textContent = gettext("Checking the proofs in your browser…");
  const round = Number(document.querySelector(".round-page").dataset.round);
  let result;
  try {
    const log = JSON.parse(document.getElementById("round-log").textContent);
    result = await checkLog(log, await fetchKey(), { round });
  } catch (e) {
    logOut.dataset.ok = "false";
    logOut.textContent = format(gettext("The check could not run: %(error)s"), { error: e.message || String(e) });
    return;
  }
  const fetched = new Map(result.entries.map((e) => [String(e.index), e]));
  const problems = [];
  if (!result.checkpoint) problems.push(gettext("The checkpoint is not a signed note this page can read."));
  for (const item of logSection.querySelectorAll("[data-index]")) {
    const entry = fetched.get(item.dataset.index);
    const mark = item.querySelector("[data-check]");
    const values = { index: item.dataset.index };
    let ok = false;
    if (!entry) problems.push(format(gettext("Leaf %(index)s is not in the record the studio serves now."), values));
    else if (entry.leaf !== item.dataset.leaf) problems.push(format(gettext("Leaf %(index)s is not the one shown on this page."), values));
    else if (!entry.ours) problems.push(format(gettext("Leaf %(index)s is not this round's."), values));
    else if (!entry.included) problems.push(format(gettext("Leaf %(index)s: its inclusion proof does not lead to the checkpoint's root."), values));
    else ok = true;
    item.dataset.ok = String(ok);
    mark.textContent = ok ? gettext("✓ leads to the root") : gettext("✗ does not lead to the root");
  }
  const keyName = result.key ? result.key.name : "";
  if (result.signature === "bad") problems.push(format(gettext("The checkpoint's signature does not verify with the studio's key %(key)s."), { key: keyName }));
  if (result.signature === "missing") problems.push(format(gettext("The checkpoint has no signature by the studio's key %(key)s."), { key: keyName }));
  if (result.signature === "nokey") problems.push(gettext("The studio's key could not be read."));

  const checked = logSection.querySelector("[data-testid=log-checked]");
  if (result.checkpoint) {
    const size = result.checkpoint.size.toString();
    checked.querySelector("[data-testid=log-size]").textContent = size;
    checked.querySelector("[data-testid=log-root]").textContent = toBase64(result.checkpoint.root);
    checked.querySelector("[data-testid=log-key]").textContent = keyName || "—";
    checked.querySelector("[data-testid=log-witnesses]").textContent = result.witnesses.join(", ") || gettext("no witness yet");
    checked.hidden = false;
  }
  const n = logSection.querySelectorAll("[data-index]").length;
  const ok = problems.length === 0;
  logOut.dataset.ok = String(ok);
  if (!ok) {
    logOut.innerHTML = String(html`<strong>${gettext("Check failed")}</strong>: ${gettext("what the studio serves does not prove this round's outcome.")}
      <ul>${problems.map((p) => html`<li>${p}</li>`)}</ul>`);
    return;
  }
  const values = { n, size: result.checkpoint.size.toString(), key: keyName };
  const leaves = ngettext(
    "the leaf's inclusion proof leads to the root of the signed checkpoint (tree size %(size)s, SHA-256)",
    "each of the %(n)s leaves' inclusion proofs leads to the root of the signed checkpoint (tree size %(size)s, SHA-256)", n, values);
  const signature = result.signature === "ok"
    ? format(gettext("the checkpoint's Ed25519 signature verifies with the studio's key %(key)s."), values)
    : gettext("the checkpoint's signature was not checked: this browser cannot verify Ed25519 signatures (scripts/verify_round_record.py --key checks it).");
  logOut.dataset.signature = result.signature;
  const title = result.signature === "ok" ? gettext("Checked in your browser") : gettext("Partly checked in your browser");
  logOut.innerHTML = String(html`<strong>${title}</strong>: ${leaves}; ${signature}`);
}
