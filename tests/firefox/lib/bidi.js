// A small WebDriver BiDi client over a WebSocket (npm ws): commands with ids,
// their results or errors, and events. Firefox speaks BiDi itself when started
// with --remote-debugging-port, so no driver program is needed.
// Spec: https://w3c.github.io/webdriver-bidi/
import WebSocket from 'ws';

/** One BiDi connection. */
export class Bidi {
  /** Connects to ws://host:port/session. */
  static async connect(url) {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new Bidi(ws);
  }

  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Map();
    ws.on('message', (data) => this.#receive(JSON.parse(String(data))));
    ws.on('close', () => {
      for (const { reject, method } of this.pending.values()) reject(new Error(`bidi: connection closed during ${method}`));
      this.pending.clear();
    });
  }

  #receive(msg) {
    if (msg.type === 'event') {
      for (const fn of this.listeners.get(msg.method) || []) fn(msg.params);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.type === 'error') {
      const err = new Error(`bidi ${p.method}: ${msg.error}: ${msg.message}`);
      err.bidi = msg;
      p.reject(err);
    } else {
      p.resolve(msg.result);
    }
  }

  /** Sends a command; resolves with its result, rejects with its error. */
  send(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Calls fn(params) for each event named method (after session.subscribe). */
  on(method, fn) {
    if (!this.listeners.has(method)) this.listeners.set(method, []);
    this.listeners.get(method).push(fn);
  }

  close() {
    this.ws.close();
  }
}
