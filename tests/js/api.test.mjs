import { test } from "node:test";
import assert from "node:assert/strict";
import { client, ApiError, newKey } from "../../static/js/api.js";

function fakeFetch(status, body) {
  const calls = [];
  const impl = async (url, init) => {
    calls.push({ url, init });
    return { ok: status < 400, status, json: async () => { if (body === undefined) throw new Error("no body"); return body; } };
  };
  return { impl, calls };
}

test("a call sends JSON with the token and no cookie", async () => {
  const f = fakeFetch(200, { ok: 1 });
  const api = client({ token: "tok", fetchImpl: f.impl });
  assert.deepEqual(await api("POST", "rounds/3/bets/", { spot: "andar" }), { ok: 1 });
  const { url, init } = f.calls[0];
  assert.equal(url, "/api/rounds/3/bets/");
  assert.equal(init.headers.Authorization, "Token tok");
  assert.equal(init.credentials, "omit");
  assert.equal(init.body, '{"spot":"andar"}');
});

test("a refusal is an ApiError with the API's code and fields", async () => {
  const f = fakeFetch(409, { code: "round_changed", message: "The round is no longer betting.", fields: {} });
  const api = client({ token: "t", fetchImpl: f.impl });
  await assert.rejects(api("POST", "x/", {}), (e) => e instanceof ApiError && e.status === 409 && e.code === "round_changed" && e.message === "The round is no longer betting.");
  const g = fakeFetch(502, undefined);
  await assert.rejects(client({ fetchImpl: g.impl })("GET", "x/"), (e) => e.code === "http_502");
  const down = client({ fetchImpl: async () => { throw new TypeError("Failed to fetch"); } });
  await assert.rejects(down("GET", "x/"), (e) => e.code === "network" && e.status === 0);
});

test("keys are random and distinct", () => {
  const a = newKey("bet"), b = newKey("bet");
  assert.match(a, /^bet-[0-9a-f]{32}$/);
  assert.notEqual(a, b);
});
