import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { hexBytes, sha256Hex, verify, verifySeed } from "../../static/js/fairness.js";

// Made by the server's own Python (virtual.dealer) from a fixed seed; tests/virtual/test_fairness_vector.py
// checks that the server still makes exactly this, so the two checks cannot drift apart.
const VECTOR = JSON.parse(readFileSync(new URL("./fairness_vector.json", import.meta.url), "utf8"));

test("sha256Hex is the standard SHA-256", async () => {
  assert.equal(await sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(await sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});

test("the server's vector verifies", async () => {
  const result = await verify(VECTOR);
  assert.equal(result.hash, VECTOR.commitment);
  assert.deepEqual(result.checks, { commitment: true, pack: true, joker: true, cards: true });
  assert.equal(result.ok, true);
});

test("an upper-case commitment is the same commitment", async () => {
  assert.equal((await verify({ ...VECTOR, commitment: VECTOR.commitment.toUpperCase() })).ok, true);
});

test("another salt or another pack does not match the commitment", async () => {
  const salt = await verify({ ...VECTOR, salt: VECTOR.salt.replace(/.$/, "7") });
  assert.equal(salt.ok, false);
  assert.equal(salt.checks.commitment, false);
  const codes = VECTOR.pack.split(",");
  [codes[1], codes[2]] = [codes[2], codes[1]];
  const pack = await verify({ ...VECTOR, pack: codes.join(","), cards: [codes[1], codes[2]] });
  assert.equal(pack.ok, false);
  assert.deepEqual(pack.checks, { commitment: false, pack: true, joker: true, cards: true });
});

test("dealt cards that are not the pack's next ones do not match", async () => {
  const swapped = [...VECTOR.cards];
  [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
  const result = await verify({ ...VECTOR, cards: swapped });
  assert.equal(result.ok, false);
  assert.deepEqual(result.checks, { commitment: true, pack: true, joker: true, cards: false });
  assert.equal((await verify({ ...VECTOR, joker: "2C" })).checks.joker, false);
});

test("a pack that is not 52 different cards fails even with its own hash", async () => {
  const codes = VECTOR.pack.split(",");
  codes[51] = codes[50];
  const pack = codes.join(",");
  const result = await verify({ ...VECTOR, pack, commitment: await sha256Hex(`${VECTOR.salt}:${pack}`) });
  assert.deepEqual(result.checks, { commitment: true, pack: false, joker: true, cards: true });
  assert.equal(result.ok, false);
});

test("a multiplier round's seed: its SHA-256 over the seed's bytes is the commitment", async () => {
  const { createHash } = await import("node:crypto");
  const seed = "00ff".repeat(16);
  const commit = createHash("sha256").update(Buffer.from(seed, "hex")).digest("hex");
  assert.deepEqual(await verifySeed({ commit, seed }), { ok: true, hash: commit });
  assert.equal((await verifySeed({ commit, seed: "01ff".repeat(16) })).ok, false);
  assert.equal((await verifySeed({ commit, seed: "not hex" })).ok, false);
  assert.equal(hexBytes("0a1"), null);
});
