// The round page's "Verify" button: the fairness proof of a virtual dealer's round, checked in the
// browser (static/js/fairness.js) against the data the page was rendered with.
import { proofMessage } from "./play/fairness.js";
import { verify } from "../fairness.js";

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
