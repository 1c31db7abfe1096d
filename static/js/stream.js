// A table's live stream: the socket (reconnect with backoff, liveness by ping and pong, the
// browser's online and offline events) and the order of events (each table event once, in seq
// order, a gap filled from the snapshot). Pages give callbacks; no page opens a WebSocket itself.

/**
 * Sequencer: applies numbered events exactly once and in order. A snapshot sets the position; an
 * event after a gap waits and asks for a snapshot (resync()); events older than the position are
 * dropped. Pure logic, tested under node --test.
 */
export class Sequencer {
  constructor({ apply, reset, resync }) {
    this.seq = null; this.pending = []; this.waiting = false;
    this.hooks = { apply, reset, resync };
  }
  /** A table event (has .seq). */
  event(e) {
    if (this.seq === null || this.waiting) { this.pending.push(e); return this.askOnce(); }
    if (e.seq <= this.seq) return;
    if (e.seq !== this.seq + 1) { this.pending.push(e); return this.askOnce(); }
    this.seq = e.seq; this.hooks.apply(e);
  }
  /** A snapshot from the server (the socket's first message, or an answer to resync()). */
  snapshot(snap) {
    this.waiting = false;
    if (this.seq !== null && snap.seq < this.seq) return; // never step back to an older state
    this.seq = snap.seq;
    this.hooks.reset(snap);
    const queued = this.pending.filter((e) => e.seq > this.seq).sort((a, b) => a.seq - b.seq);
    this.pending = [];
    for (let i = 0; i < queued.length; i++) {
      const e = queued[i];
      if (e.seq <= this.seq) continue;
      if (e.seq !== this.seq + 1) { this.pending = queued.slice(i); this.askOnce(); return; }
      this.seq = e.seq; this.hooks.apply(e);
    }
  }
  askOnce() {
    if (this.waiting || this.seq === null) return;
    this.waiting = true; this.hooks.resync();
  }
  /** The resync failed: allow the next gap (or a retry) to ask again. */
  failed() { this.waiting = false; }
}

/**
 * LiveSocket: keeps a WebSocket to `url` open. States: "connecting", "live", "offline" (with the
 * delay before the next try), "gone" (the server closed with 4404: no such table), "signed-out"
 * (4401: the page's sign-in ended: logged out, expired, a new password or role; the page goes to
 * the login form, which brings the reader back here once signed in again). It sends
 * {"type":"ping"} every pingMs; two pings without any message back count as a dead stream, which
 * is closed and reconnected. The browser's offline event does the same at once. onPong(pong), if
 * given, gets each pong ({"type":"pong","seq":N}: the last table event the server sent this socket).
 */
export class LiveSocket {
  constructor(url, { onMessage, onState, onPong, pingMs = 15000, WebSocketImpl = globalThis.WebSocket, random = Math.random, win = globalThis.window } = {}) {
    Object.assign(this, { url, onMessage, onState, onPong, pingMs, WebSocketImpl, random, win });
    this.ws = null; this.retries = 0; this.timer = null; this.pinger = null; this.unanswered = 0; this.closed = false;
    if (win && win.addEventListener) {
      win.addEventListener("online", () => this.now());
      win.addEventListener("offline", () => this.drop());
      if (globalThis.document) document.addEventListener("visibilitychange", () => { if (!document.hidden) this.now(); });
    }
  }
  open() {
    this.closed = false;
    clearTimeout(this.timer); this.timer = null;
    this.state("connecting");
    const ws = new this.WebSocketImpl(this.url);
    this.ws = ws;
    ws.onopen = () => { if (this.ws !== ws) return; this.retries = 0; this.unanswered = 0; this.state("live"); this.startPing(ws); };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      this.unanswered = 0;
      let m; try { m = JSON.parse(e.data); } catch { return; }
      if (m && m.type === "pong") { if (this.onPong) this.onPong(m); return; } // {seq}: the last table event sent
      this.onMessage && this.onMessage(m);
    };
    ws.onclose = (e) => { if (this.ws === ws) this.lost(e.code); };
    return this;
  }
  startPing(ws) {
    clearInterval(this.pinger);
    this.pinger = setInterval(() => {
      if (this.ws !== ws) return clearInterval(this.pinger);
      if (this.unanswered >= 2) return this.drop();
      this.unanswered += 1;
      try { ws.send('{"type":"ping"}'); } catch { this.drop(); }
    }, this.pingMs);
  }
  /** The stream is dead (silent, or the browser went offline): close it and reconnect. */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    try { ws.close(); } catch { /* already closing */ }
    this.lost(1006);
  }
  lost(code) {
    clearInterval(this.pinger); this.pinger = null;
    this.ws = null;
    if (this.closed) return;
    if (code === 4404) { this.state("gone"); return; }
    if (code === 4401) { this.state("signed-out"); this.signIn(); return; }
    const delay = Math.round(Math.min(15000, 500 * 2 ** this.retries) * (0.75 + this.random() * 0.5));
    this.retries += 1;
    this.state("offline", delay);
    this.timer = setTimeout(() => this.open(), delay);
  }
  /** Reconnect now if waiting to (the browser came back online, the tab became visible). */
  now() { if (!this.ws && this.timer && !this.closed) this.open(); }
  send(obj) { if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(obj)); }
  close() {
    this.closed = true; clearTimeout(this.timer); clearInterval(this.pinger);
    const ws = this.ws; this.ws = null; if (ws) ws.close();
  }
  state(s, delay) { this.onState && this.onState(s, delay); }
  /** To the login form, and back to this page once signed in (never the dead token again). */
  signIn() {
    const loc = this.win && this.win.location;
    if (loc) loc.assign("/login/?next=" + encodeURIComponent(loc.pathname + loc.search));
  }
}

/** ws:// or wss:// URL of a path on this site, with the token as a query parameter when given. */
export function socketURL(path, token, loc = globalThis.location) {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}${path}` + (token ? "?token=" + encodeURIComponent(token) : "");
}
