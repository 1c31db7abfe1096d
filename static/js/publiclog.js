// The public round log checked in the browser, with Web Crypto only: a round's leaves lead by their
// inclusion proofs to the root of a checkpoint (RFC 9162: leaf hash SHA-256(0x00 || leaf), node
// SHA-256(0x01 || left || right), the verification of section 2.1.3.2), and the checkpoint, a C2SP
// signed note, carries an Ed25519 signature by the studio's published key. It hashes and verifies;
// what a leaf says is the server's (the page shows it).

const enc = new TextEncoder();
const DASH = "\u2014 ";

/** The bytes of a base64 text, or null when it is not base64. */
export function fromBase64(text) {
  const s = String(text ?? "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4) return null;
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}


function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

function same(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function sha256(bytes, subtle) {
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

/** RFC 9162 leaf hash: SHA-256(0x00 || leaf). */
export function leafHash(leaf, subtle = globalThis.crypto.subtle) {
  return sha256(concat([0], leaf), subtle);
}

function nodeHash(left, right, subtle) {
  return sha256(concat([1], left, right), subtle);
}

/**
 * verifyInclusion({index, size, leaf, proof, root}) -> true when the leaf's bytes, at `index` in a
 * tree of `size` leaves, lead through `proof` (hashes, bytes) to `root` (RFC 9162 2.1.3.2). BigInt
 * indices: a log may pass 2^32 leaves, where JavaScript's bit operators stop.
 */
export async function verifyInclusion({ index, size, leaf, proof, root }, subtle = globalThis.crypto.subtle) {
  let fn = BigInt(index);
  let sn = BigInt(size) - 1n;
  if (fn < 0n || fn > sn) return false;
  let r = await leafHash(leaf, subtle);
  for (const p of proof) {
    if (sn === 0n) return false;
    if (fn % 2n === 1n || fn === sn) {
      r = await nodeHash(p, r, subtle);
      while (fn % 2n === 0n && fn !== 0n) { fn /= 2n; sn /= 2n; }
    } else {
      r = await nodeHash(r, p, subtle);
    }
    fn /= 2n;
    sn /= 2n;
  }
  return sn === 0n && same(r, root);
}

/**
 * parseCheckpoint(note) -> {text, origin, size, root, signatures: [{name, keyId, signature}]} or
 * null: `text` is what the signatures cover (the note up to and including the newline before the
 * blank line), `size` a BigInt, `root` bytes; each signature line "— <name> <base64>" split into its
 * 4-byte key id and the rest (a witness's cosignature keeps its timestamp in the rest).
 */
export function parseCheckpoint(note) {
  const s = String(note ?? "");
  const cut = s.indexOf("\n\n");
  if (cut < 0) return null;
  const text = s.slice(0, cut + 1);
  const lines = text.slice(0, -1).split("\n");
  const root = fromBase64(lines[2]);
  if (lines.length < 3 || !/^\d+$/.test(lines[1] || "") || !root || root.length !== 32) return null;
  const signatures = [];
  for (const line of s.slice(cut + 2).split("\n")) {
    if (!line) continue;
    if (!line.startsWith(DASH)) return null;
    const rest = line.slice(DASH.length);
    const space = rest.lastIndexOf(" ");
    const raw = fromBase64(rest.slice(space + 1));
    if (space < 1 || !raw || raw.length < 5) return null;
    signatures.push({ name: rest.slice(0, space), keyId: raw.slice(0, 4), signature: raw.slice(4) });
  }
  return { text, origin: lines[0], size: BigInt(lines[1]), root, signatures };
}

/** parseVerifierKey("<name>+<8 hex key id>+<base64(0x01 || key)>") -> {name, keyId, publicKey} or null. */
export function parseVerifierKey(text) {
  const parts = String(text ?? "").trim().split("+");
  if (parts.length < 3) return null;
  const [name, hex] = parts;
  const raw = fromBase64(parts.slice(2).join("+"));  // base64 may hold "+"
  if (!name || !/^[0-9a-f]{8}$/i.test(hex) || !raw || raw.length !== 33 || raw[0] !== 1) return null;
  return { name, keyId: Uint8Array.from(hex.match(/../g), (b) => parseInt(b, 16)), publicKey: raw.slice(1) };
}

/** A verifier key's id: the first 4 bytes of SHA-256(name || 0x0A || 0x01 || public key). */
export async function keyId(name, publicKey, subtle = globalThis.crypto.subtle) {
  return (await sha256(concat(enc.encode(name), [0x0a, 0x01], publicKey), subtle)).slice(0, 4);
}

/**
 * verifySignature(checkpoint, key) -> "ok", "bad" (the key's signature line is there and does not
 * verify, or the key's id is not its own), "missing" (no line by that key) or "unsupported" (this
 * browser's Web Crypto has no Ed25519: nothing was checked).
 */
export async function verifySignature(checkpoint, key, subtle = globalThis.crypto.subtle) {
  if (!same(await keyId(key.name, key.publicKey, subtle), key.keyId)) return "bad";
  const line = checkpoint.signatures.find((s) => s.name === key.name && same(s.keyId, key.keyId));
  if (!line) return "missing";
  let publicKey;
  try {
    publicKey = await subtle.importKey("raw", key.publicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch (e) {
    if (e && e.name === "DataError") return "bad";
    return "unsupported";  // NotSupportedError, or an older engine's own refusal of the algorithm
  }
  if (line.signature.length !== 64) return "bad";
  return (await subtle.verify({ name: "Ed25519" }, publicKey, line.signature, enc.encode(checkpoint.text))) ? "ok" : "bad";
}

/**
 * checkLog(log, keyText, {round}) -> {ok, checkpoint, signature, key, witnesses, entries}: a round
 * record's `log` ({checkpoint, entries: [{index, leaf, proof}]}) checked against the verifier key's
 * text. `entries`: [{index, leaf (base64), included, ours}], `included` when its proof leads to the
 * checkpoint's root, `ours` when the leaf names `round` (when given). `signature` as
 * verifySignature says, "nokey" for a key that does not parse; `checkpoint` null when the note does
 * not parse. ok when every leaf is included and ours and the signature is not "bad", "missing" or
 * "nokey" ("unsupported" leaves ok to the leaves, and the page says the signature was not checked).
 */
export async function checkLog(log, keyText, { round = null } = {}, subtle = globalThis.crypto.subtle) {
  const checkpoint = parseCheckpoint(log && log.checkpoint);
  const key = parseVerifierKey(keyText);
  const result = { ok: false, checkpoint, key, signature: "nokey", witnesses: [], entries: [] };
  if (!checkpoint) return result;
  if (key) result.signature = await verifySignature(checkpoint, key, subtle);
  result.witnesses = checkpoint.signatures.filter((s) => !key || s.name !== key.name).map((s) => s.name);
  for (const entry of (log && log.entries) || []) {
    const leaf = fromBase64(entry.leaf);
    const proof = (entry.proof || []).map(fromBase64);
    const included = !!leaf && proof.every(Boolean) &&
      await verifyInclusion({ index: entry.index, size: checkpoint.size, leaf, proof, root: checkpoint.root }, subtle);
    let ours = round === null;
    if (leaf && !ours) {
      try { ours = JSON.parse(new TextDecoder().decode(leaf)).round === round; } catch { ours = false; }
    }
    result.entries.push({ index: entry.index, leaf: entry.leaf, included, ours: !!leaf && ours });
  }
  result.ok = result.entries.length > 0 && result.entries.every((e) => e.included && e.ours) &&
    (result.signature === "ok" || result.signature === "unsupported");
  return result;
}

/** Bytes as base64, as a checkpoint writes its root. */
export function toBase64(bytes) {
  return btoa(String.fromCharCode(...bytes));
}
