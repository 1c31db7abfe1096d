// The virtual dealer's fairness proof, checked in the browser (docs/FAIRNESS.md): before betting
// opens the server publishes SHA-256("<salt>:<pack>") in hex; once the round is over it reveals the
// salt and the pack (52 card codes joined by commas: the joker first, then the cards in the order
// they are dealt). The check is the server's own `virtual.dealer.verify`, step for step.

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["S", "H", "D", "C"];
const FULL_PACK = RANKS.flatMap((r) => SUITS.map((s) => r + s)).sort();

/** SHA-256 of a text (UTF-8), as 64 lowercase hex digits, with the Web Crypto API. */
export async function sha256Hex(text, subtle = globalThis.crypto.subtle) {
  const digest = await subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * verify({commitment, salt, pack, joker, cards}) -> {ok, hash, checks}: `checks` says which part
 * held: `commitment` (the hash of "salt:pack" is the one published), `pack` (all 52 cards, each
 * once), `joker` (the pack's first card), `cards` (the dealt cards are the pack's next ones, in
 * order). `cards`: the dealt card codes in order. ok only if all four hold.
 */
export async function verify({ commitment, salt, pack, joker, cards = [] }, subtle) {
  const hash = await sha256Hex(`${salt}:${pack}`, subtle);
  const codes = String(pack ?? "").split(",");
  const checks = {
    commitment: hash === String(commitment ?? "").toLowerCase(),
    pack: codes.length === 52 && [...codes].sort().every((c, i) => c === FULL_PACK[i]),
    joker: codes[0] === joker,
    cards: cards.length <= 51 && cards.every((c, i) => codes[i + 1] === c),
  };
  return { ok: Object.values(checks).every(Boolean), hash, checks };
}

/** The bytes a hex text stands for, or null when it is not whole bytes of hex. */
export function hexBytes(hex) {
  const text = String(hex ?? "");
  if (!/^([0-9a-fA-F]{2})+$/.test(text)) return null;
  return Uint8Array.from(text.match(/../g), (b) => parseInt(b, 16));
}

/**
 * verifySeed({commit, seed}) -> {ok, hash}: a round with random multipliers published `commit`, the
 * hex SHA-256 of its seed's bytes, when it opened, and revealed the seed (hex) with the draw when
 * betting closed; ok when the seed's hash is the commitment. (The draw itself is recomputed by
 * scripts/verify_round_record.py.)
 */
export async function verifySeed({ commit, seed }, subtle = globalThis.crypto.subtle) {
  const bytes = hexBytes(seed);
  if (!bytes) return { ok: false, hash: "" };
  const digest = await subtle.digest("SHA-256", bytes);
  const hash = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return { ok: hash === String(commit ?? "").toLowerCase(), hash };
}
