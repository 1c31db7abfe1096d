import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { Sequencer, LiveSocket, socketURL } from "../../static/js/stream.js";

function recorder() {
  const log = [];
  const seq = new Sequencer({
    apply: (e) => log.push(["apply", e.seq]),
    reset: (s) => log.push(["reset", s.seq]),
    resync: () => log.push(["resync"]),
  });
  return { log, seq };
}

test("events apply once, in order, after the snapshot", () => {
  const { log, seq } = recorder();
  seq.event({ seq: 5 });            // before any snapshot: held
  seq.snapshot({ seq: 4 });
  seq.event({ seq: 5 });            // a repeat: dropped
  seq.event({ seq: 6 });
  assert.deepEqual(log, [["reset", 4], ["apply", 5], ["apply", 6]]);
});

test("a gap asks for one snapshot and the held events follow it", () => {
  const { log, seq } = recorder();
  seq.snapshot({ seq: 1 });
  seq.event({ seq: 3 });
  seq.event({ seq: 4 });
  assert.deepEqual(log, [["reset", 1], ["resync"]]);
  seq.snapshot({ seq: 2 });
  assert.deepEqual(log.slice(2), [["reset", 2], ["apply", 3], ["apply", 4]]);
  seq.snapshot({ seq: 1 }); // an older snapshot never steps back
  assert.equal(seq.seq, 4);
});

class FakeSocket {
  static all = [];
  constructor(url) { this.url = url; this.sent = []; this.readyState = 0; FakeSocket.all.push(this); }
  send(text) { this.sent.push(text); }
  close() { this.readyState = 3; }
  open() { this.readyState = 1; this.onopen(); }
  message(obj) { this.onmessage({ data: JSON.stringify(obj) }); }
}

test("a silent socket is declared dead after two unanswered pings and reconnected", () => {
  mock.timers.enable({ apis: ["setInterval", "setTimeout"] });
  try {
    FakeSocket.all = [];
    const states = [], got = [];
    const live = new LiveSocket("ws://x/ws/tables/1/", {
      onMessage: (m) => got.push(m), onState: (s) => states.push(s), pingMs: 15000,
      WebSocketImpl: FakeSocket, random: () => 0.5, win: null,
    }).open();
    const first = FakeSocket.all[0];
    first.open();
    mock.timers.tick(15000);
    assert.deepEqual(first.sent, ['{"type":"ping"}']);
    first.message({ type: "pong", seq: 3 }); // answered: not passed on, the count restarts
    mock.timers.tick(15000);
    mock.timers.tick(15000);
    assert.deepEqual(states, ["connecting", "live"]);
    mock.timers.tick(15000);  // the third tick finds two pings unanswered
    assert.deepEqual(states, ["connecting", "live", "offline"]);
    assert.equal(first.readyState, 3);
    mock.timers.tick(500);
    assert.equal(FakeSocket.all.length, 2);
    FakeSocket.all[1].open();
    FakeSocket.all[1].message({ type: "snapshot", seq: 9 });
    assert.deepEqual(got, [{ type: "snapshot", seq: 9 }]);
    assert.equal(states.at(-1), "live");
    live.close();
  } finally {
    mock.timers.reset();
  }
});

test("a pong goes to onPong, not to onMessage", () => {
  mock.timers.enable({ apis: ["setInterval", "setTimeout"] });
  try {
    FakeSocket.all = [];
    const pongs = [], got = [];
    const live = new LiveSocket("ws://x/", { onMessage: (m) => got.push(m), onPong: (m) => pongs.push(m),
      WebSocketImpl: FakeSocket, win: null }).open();
    FakeSocket.all[0].open();
    FakeSocket.all[0].message({ type: "pong", seq: 7 });
    assert.deepEqual(pongs, [{ type: "pong", seq: 7 }]);
    assert.deepEqual(got, []);
    live.close();
  } finally {
    mock.timers.reset();
  }
});

test("4404 means the table is gone: no reconnect", () => {
  mock.timers.enable({ apis: ["setInterval", "setTimeout"] });
  try {
    FakeSocket.all = [];
    const states = [];
    new LiveSocket("ws://x/", { onState: (s) => states.push(s), WebSocketImpl: FakeSocket, win: null }).open();
    FakeSocket.all[0].onclose({ code: 4404 });
    mock.timers.tick(60000);
    assert.deepEqual(states, ["connecting", "gone"]);
    assert.equal(FakeSocket.all.length, 1);
  } finally {
    mock.timers.reset();
  }
});

test("4401 means the sign-in ended: no reconnect with it, the login form, and back here after", () => {
  mock.timers.enable({ apis: ["setInterval", "setTimeout"] });
  try {
    FakeSocket.all = [];
    const states = [], went = [];
    const win = { location: { pathname: "/play/tables/3/", search: "?lang=hi", assign: (url) => went.push(url) } };
    new LiveSocket("ws://x/?token=t", { onState: (s) => states.push(s), WebSocketImpl: FakeSocket, win }).open();
    FakeSocket.all[0].onclose({ code: 4401 });
    mock.timers.tick(60000);
    assert.deepEqual(states, ["connecting", "signed-out"]);
    assert.equal(FakeSocket.all.length, 1);
    assert.deepEqual(went, ["/login/?next=%2Fplay%2Ftables%2F3%2F%3Flang%3Dhi"]);
  } finally {
    mock.timers.reset();
  }
});

test("socketURL follows the page's scheme and carries the token", () => {
  assert.equal(socketURL("/ws/tables/3/", "a b", { protocol: "https:", host: "h" }), "wss://h/ws/tables/3/?token=a%20b");
  assert.equal(socketURL("/ws/tables/3/", "", { protocol: "http:", host: "h:8" }), "ws://h:8/ws/tables/3/");
});
