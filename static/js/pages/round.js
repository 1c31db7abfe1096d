// The round page's checks in the browser, against the data the page was rendered with: a virtual
// dealer's fairness proof (its "Verify" button, static/js/fairness.js), and at a table with random
// multipliers that the revealed seed hashes to the commitment published when the round opened.
import { proofMessage } from "./play/fairness.js";
import { format, gettext } from "../i18n.js";
import { verify, verifySeed } from "../fairness.js";

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
