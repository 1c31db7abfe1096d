import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import {
  checkLog, fromBase64, keyId, parseCheckpoint, parseVerifierKey, verifyInclusion, verifySignature,
} from "../../static/js/publiclog.js";

// A tree built here with node:crypto, from RFC 9162's recursive definitions (MTH and PATH), apart
// from the module's iterative verification.
const sha = (...parts) => createHash("sha256").update(Buffer.concat(parts.map((p) => Buffer.from(p)))).digest();
const leafHash = (leaf) => sha([0], leaf);
const split = (n) => { let k = 1; while (k * 2 < n) k *= 2; return k; };
function mth(leaves) {
  if (leaves.length === 0) return sha([]);
  if (leaves.length === 1) return leafHash(leaves[0]);
  const k = split(leaves.length);
  return sha([1], mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
function path(m, leaves) {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))]
    : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

const outcome = (round, status = "settled") => Buffer.from(JSON.stringify({ cards: ["2C", "KD"], round, status, winner: "bahar" }));
const LEAVES = Array.from({ length: 11 }, (_, i) => outcome(100 + i));
const ROOT = mth(LEAVES);

// The studio's key, as a C2SP verifier key, and a checkpoint it signed.
const NAME = "tests.andar-bahar.studio/log";
const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const PUBLIC = Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url");
const ID = sha(Buffer.from(NAME + "\n"), [1], PUBLIC).subarray(0, 4);
const KEY = `${NAME}+${ID.toString("hex")}+${Buffer.concat([Buffer.from([1]), PUBLIC]).toString("base64")}\n`;

function note(size, root, { by = privateKey, id = ID, extra = "" } = {}) {
  const text = `${NAME}\n${size}\n${Buffer.from(root).toString("base64")}\n`;
  const sig = sign(null, Buffer.from(text), by);
  return `${text}\n\u2014 ${NAME} ${Buffer.concat([id, sig]).toString("base64")}\n${extra}`;
}
const b64 = (bytes) => Buffer.from(bytes).toString("base64");
const entry = (i, leaves = LEAVES) => ({ index: i, leaf: b64(leaves[i]), proof: path(i, leaves).map(b64) });

test("every leaf of trees of 1 to 11 leaves leads to its root", async () => {
  for (let size = 1; size <= LEAVES.length; size++) {
    const leaves = LEAVES.slice(0, size);
    for (let i = 0; i < size; i++) {
      assert.equal(await verifyInclusion({ index: i, size, leaf: leaves[i], proof: path(i, leaves), root: mth(leaves) }), true, `${i} of ${size}`);
    }
  }
});

test("a tampered proof, leaf, index or root, or a size too small, does not lead to the root", async () => {
  const good = { index: 5, size: 11, leaf: LEAVES[5], proof: path(5, LEAVES), root: ROOT };
  assert.equal(await verifyInclusion(good), true);
  const flipped = good.proof.map((h) => Buffer.from(h));
  flipped[1][0] ^= 1;
  assert.equal(await verifyInclusion({ ...good, proof: flipped }), false);
  assert.equal(await verifyInclusion({ ...good, leaf: LEAVES[6] }), false);
  assert.equal(await verifyInclusion({ ...good, index: 4 }), false);
  assert.equal(await verifyInclusion({ ...good, size: 5 }), false);
  assert.equal(await verifyInclusion({ ...good, proof: good.proof.slice(1) }), false);
  assert.equal(await verifyInclusion({ ...good, proof: [...good.proof, ROOT] }), false);
  assert.equal(await verifyInclusion({ ...good, root: mth(LEAVES.slice(0, 10)) }), false);
  assert.equal(await verifyInclusion({ ...good, index: 11 }), false);
});

test("the verifier key and the checkpoint parse; the key's id is its own", async () => {
  const key = parseVerifierKey(KEY);
  assert.equal(key.name, NAME);
  assert.deepEqual(Buffer.from(key.publicKey), PUBLIC);
  assert.deepEqual(Buffer.from(await keyId(key.name, key.publicKey)), ID);
  const cp = parseCheckpoint(note(11, ROOT, { extra: "\u2014 witness.example/w1 AAAAAAAAAAAAAAAA\n" }));
  assert.equal(cp.origin, NAME);
  assert.equal(cp.size, 11n);
  assert.deepEqual(Buffer.from(cp.root), ROOT);
  assert.deepEqual(cp.signatures.map((s) => s.name), [NAME, "witness.example/w1"]);
  assert.equal(cp.text, `${NAME}\n11\n${ROOT.toString("base64")}\n`);
  assert.equal(parseVerifierKey("name+zz+AQ=="), null);
  assert.equal(parseCheckpoint("no blank line"), null);
  assert.equal(parseCheckpoint(`${NAME}\nten\n${ROOT.toString("base64")}\n\n`), null);
});

test("the checkpoint's Ed25519 signature verifies with the key, and not once the note is changed", async () => {
  const key = parseVerifierKey(KEY);
  assert.equal(await verifySignature(parseCheckpoint(note(11, ROOT)), key), "ok");
  const changed = note(11, ROOT).replace("\n11\n", "\n12\n");
  assert.equal(await verifySignature(parseCheckpoint(changed), key), "bad");
  const other = generateKeyPairSync("ed25519").privateKey;
  assert.equal(await verifySignature(parseCheckpoint(note(11, ROOT, { by: other })), key), "bad");
  assert.equal(await verifySignature(parseCheckpoint(note(11, ROOT, { id: Buffer.from([0, 0, 0, 0]) })), key), "missing");
});

test("a browser without Ed25519 leaves the signature unchecked, not failed", async () => {
  const subtle = {
    digest: (alg, data) => globalThis.crypto.subtle.digest(alg, data),
    importKey: async () => { throw new DOMException("Algorithm: Unrecognized name", "NotSupportedError"); },
  };
  const result = await checkLog({ checkpoint: note(11, ROOT), entries: [entry(3)] }, KEY, { round: 103 }, subtle);
  assert.equal(result.signature, "unsupported");
  assert.equal(result.entries[0].included, true);
  assert.equal(result.ok, true);
});

test("checkLog: a round's leaves against a signed checkpoint; a flipped proof byte fails", async () => {
  const log = { checkpoint: note(11, ROOT, { extra: "\u2014 witness.example/w1 AAAAAAAAAAAAAAAA\n" }), entries: [entry(2), entry(9)] };
  const good = await checkLog(log, KEY);
  assert.equal(good.ok, true);
  assert.equal(good.signature, "ok");
  assert.deepEqual(good.witnesses, ["witness.example/w1"]);
  assert.deepEqual(good.entries.map((e) => [e.index, e.included]), [[2, true], [9, true]]);

  const proof = fromBase64(log.entries[1].proof[0]);
  proof[7] ^= 0x80;
  const tampered = { ...log, entries: [log.entries[0], { ...log.entries[1], proof: [b64(proof), ...log.entries[1].proof.slice(1)] }] };
  const bad = await checkLog(tampered, KEY);
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.entries.map((e) => [e.index, e.included]), [[2, true], [9, false]]);
});

test("checkLog: another round's leaf, a bad signature or a key that does not parse fail", async () => {
  const log = { checkpoint: note(11, ROOT), entries: [entry(4)] };
  assert.equal((await checkLog(log, KEY, { round: 104 })).ok, true);
  const other = await checkLog(log, KEY, { round: 105 });
  assert.equal(other.ok, false);
  assert.equal(other.entries[0].ours, false);
  const forged = await checkLog({ ...log, checkpoint: note(11, ROOT, { by: generateKeyPairSync("ed25519").privateKey }) }, KEY);
  assert.equal(forged.signature, "bad");
  assert.equal(forged.ok, false);
  assert.equal((await checkLog(log, "not a key")).signature, "nokey");
  assert.equal((await checkLog(log, "not a key")).ok, false);
  assert.equal((await checkLog({ checkpoint: "garbage", entries: [entry(4)] }, KEY)).checkpoint, null);
});
