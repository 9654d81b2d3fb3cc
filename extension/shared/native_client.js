// The client side of the native-messaging wire protocol (docs/protocol.md):
// one port to gnosis-host, request ids, per-request timeouts with cancel,
// reassembly of chunked replies, events, reconnect with capped backoff, the
// browser's transport errors turned into stable codes and advice, and, when
// given a compatibility check, nothing but health sent to a host that does
// not fit (HOST_INCOMPATIBLE).
//
// Glue with state (the port, the pending requests, the timers), in shared/
// rather than core/: its only chrome.* use is reading
// chrome.runtime.lastError when a port disconnects, and even that, like the
// port (in the extension, () => chrome.runtime.connectNative('com.gnosis.host'))
// and the timers, can be injected, so node --test runs it against fakes.
// host.js holds the one shared instance.

import { cappedExponential } from './core/backoff.js';
import { CODES, TRANSPORT_CODES } from './core/codes.js';
import { METHODS } from './core/methods.js';

/** How long the connection's health may take (the connect probe, and a gated request's wait). */
const HEALTH_TIMEOUT_MS = 15_000;

const ADVICE = {
  HOST_NOT_FOUND: 'The browser finds no usable Gnosis host: it is not installed for this browser, its manifest is damaged, or the program it names was moved or deleted. Install the host with one click, or run gnosis-host install in a terminal (gnosis-host doctor tells which).',
  HOST_FORBIDDEN: "The host's manifest does not list this extension's id in allowed_origins. Run gnosis-host install again (or add this extension id to the config's \"extensions\").",
  HOST_EXITED: 'The host started and then exited. Run gnosis-host doctor in a terminal to see why.',
  HOST_ERROR: 'The browser could not talk to the host (it may have crashed or printed something that is not the protocol). Run gnosis-host doctor in a terminal.',
  TIMEOUT: 'The host did not answer in time. The capability may still be running; check gnosis-host doctor and the host log.',
};

// Firefox gives one message for a missing manifest and for a manifest whose
// allowed_extensions lacks this add-on, so its advice covers both.
const FIREFOX_ADVICE = {
  HOST_NOT_FOUND: 'The Gnosis host is not installed for Firefox, or its manifest does not list this add-on in allowed_extensions. Install the host with one click, or run gnosis-host install in a terminal.',
  HOST_FORBIDDEN: "The host's manifest does not list this add-on's id in allowed_extensions. Run gnosis-host install again.",
  HOST_ERROR: 'Firefox could not start the host or talk to it: the program its manifest names may be missing or not executable, or it wrote something that is not the protocol. Run gnosis-host doctor in a terminal; gnosis-host install puts the program back.',
};

// The browsers' disconnect messages, Chrome's first, then Firefox's
// (NativeMessaging.sys.mjs; older Firefox had its own "permission" message).
const MESSAGES = [
  { pattern: /not found/i, code: TRANSPORT_CODES.HOST_NOT_FOUND },
  { pattern: /forbidden/i, code: TRANSPORT_CODES.HOST_FORBIDDEN },
  { pattern: /has exited/i, code: TRANSPORT_CODES.HOST_EXITED },
  { pattern: /^No such native application\b/i, code: TRANSPORT_CODES.HOST_NOT_FOUND, firefox: true },
  { pattern: /does not have permission to use native application/i, code: TRANSPORT_CODES.HOST_FORBIDDEN, firefox: true },
  // Firefox's words for a manifest whose program is missing or cannot start, and for a frame over 1 MiB.
  { pattern: /^An unexpected error occurred/i, code: TRANSPORT_CODES.HOST_ERROR, firefox: true },
  { pattern: /^Native application tried to send a message of/i, code: TRANSPORT_CODES.HOST_ERROR, firefox: true },
];

/**
 * Maps the browser's port error message to a transport code and advice.
 * Chrome reports a disconnect in chrome.runtime.lastError, Firefox in the
 * port's error; neither means the host ran and exited cleanly (Firefox then
 * gives no error at all).
 * @param {string|undefined} message the disconnect's error message
 * @returns {{code: string, message: string, advice: string}}
 */
export function transportError(message) {
  const text = String(message || 'Native host has exited.');
  const known = MESSAGES.find((m) => m.pattern.test(text));
  const code = known?.code ?? TRANSPORT_CODES.HOST_ERROR;
  const advice = (known?.firefox && FIREFOX_ADVICE[code]) || ADVICE[code];
  return { code, message: text, advice };
}

/** Makes the Error a request rejects with: .code and .advice set. */
export function makeTransportError(code, message, advice = ADVICE[code]) {
  const err = new Error(message);
  err.code = code;
  err.advice = advice;
  return err;
}

/**
 * One native-messaging connection with request/reply on top.
 *
 * Status (status(), and the 'status' event on every change):
 *   {state: 'idle'|'connecting'|'connected'|'error', error?: {code, message, advice},
 *    health?: the last health reply}
 */
export class NativeClient {
  /**
   * @param {() => object} connect returns a Port-like object
   *   ({postMessage, disconnect, onMessage.addListener, onDisconnect.addListener})
   * @param {object} [options]
   * @param {number} [options.timeoutMs=30000] default per-request timeout
   * @param {number} [options.backoffMs=500] first reconnect delay
   * @param {number} [options.maxBackoffMs=30000] reconnect delay cap
   * @param {boolean} [options.autoReconnect=true] reconnect after a disconnect
   * @param {boolean} [options.probe=true] send `health` after each connect
   * @param {() => string|undefined} [options.lastError] reads the browser's
   *   error for a disconnect when the port's own error (Firefox's port.error)
   *   is not set (default: chrome.runtime.lastError?.message)
   * @param {object} [options.timers] {setTimeout, clearTimeout} (tests)
   * @param {(health: object) => {message: string, advice?: string}|null} [options.compatible]
   *   judges the host by its health reply: null when the extension may use
   *   it, else why not. With it, every request but health waits for the
   *   connection's health and is rejected with HOST_INCOMPATIBLE, unsent,
   *   when the host does not fit.
   */
  constructor(connect, options = {}) {
    this._connect = connect;
    this._timeoutMs = options.timeoutMs ?? 30_000;
    this._backoffMs = options.backoffMs ?? 500;
    this._maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this._autoReconnect = options.autoReconnect ?? true;
    this._probe = options.probe ?? true;
    this._lastError = options.lastError ?? (() => globalThis.chrome?.runtime?.lastError?.message);
    this._timers = options.timers ?? { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t) };
    this._port = null;
    this._nextId = 1;
    this._pending = new Map(); // id -> {resolve, reject, timer, onEvent}
    this._chunks = new Map(); // id -> {chunks, parts}
    this._listeners = new Map(); // event name -> Set(fn)
    this._status = { state: 'idle' };
    this._failures = 0;
    this._reconnectTimer = null;
    this._closed = false;
    this._compatible = options.compatible ?? null;
    this._healthWait = null; // the connection's health request in flight, once
  }

  /** The current connection status (a copy). */
  status() {
    return structuredClone(this._status);
  }

  /**
   * Subscribes to a host event ('capabilities.changed', 'provider.state', any
   * future event name) or to 'status' changes and 'orphan' replies (id null).
   * @returns {() => void} unsubscribe
   */
  on(name, fn) {
    if (!this._listeners.has(name)) this._listeners.set(name, new Set());
    this._listeners.get(name).add(fn);
    return () => this._listeners.get(name)?.delete(fn);
  }

  /**
   * Sends a request and resolves with the host's reply object (ok true or
   * false). Rejects only on transport failure (Error with .code and .advice).
   * @param {string} method
   * @param {object} [params]
   * @param {{timeoutMs?: number, onEvent?: (event: object) => void, signal?: AbortSignal}} [options]
   */
  request(method, params, options = {}) {
    if (!this._compatible || method === METHODS.HEALTH) return this._send(method, params, options);
    return this._admit(method, options).then(() => this._send(method, params, options));
  }

  /**
   * Resolves when method may go to the host: the connection's health says it
   * fits (or says nothing readable: a refused or failed health leaves the
   * request to meet the same fate). Rejects with HOST_INCOMPATIBLE otherwise,
   * and with the transport's error, TIMEOUT or CANCELLED while waiting.
   */
  async _admit(method, { timeoutMs = this._timeoutMs, signal } = {}) {
    const health = await this._connectionHealth(timeoutMs, signal);
    const why = health?.ok ? this._compatible(health) : null;
    if (why) throw makeTransportError(TRANSPORT_CODES.HOST_INCOMPATIBLE, `${method} was not sent: ${why.message}`, why.advice);
  }

  /** The health reply of the current connection: known, in flight, or asked for now. */
  _connectionHealth(timeoutMs, signal) {
    if (this._port && this._status.health) return Promise.resolve(this._status.health);
    try {
      this._ensurePort(); // a new connection starts its probe, which is the health to wait for
    } catch (err) {
      return Promise.reject(err);
    }
    if (!this._healthWait) {
      const wait = this.health({ timeoutMs: HEALTH_TIMEOUT_MS });
      this._healthWait = wait;
      const clear = () => { if (this._healthWait === wait) this._healthWait = null; };
      wait.then(clear, clear);
    }
    const wait = this._healthWait;
    if (!(timeoutMs > 0 && Number.isFinite(timeoutMs)) && !signal) return wait;
    return new Promise((resolve, reject) => {
      let timer = null;
      const onAbort = () => finish(reject, makeTransportError(CODES.CANCELLED, 'request cancelled while waiting for the host\'s health', 'The request was cancelled.'));
      const finish = (fn, v) => {
        this._timers.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn(v);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        timer = this._timers.setTimeout(() => finish(reject, makeTransportError(TRANSPORT_CODES.TIMEOUT, `the host's health did not arrive within ${timeoutMs} ms`)), timeoutMs);
      }
      wait.then((h) => finish(resolve, h), (err) => finish(reject, err));
    });
  }

  _send(method, params, { timeoutMs = this._timeoutMs, onEvent, signal } = {}) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(makeTransportError(CODES.CANCELLED, 'request aborted before it was sent', 'The request was cancelled.'));
        return;
      }
      let port;
      try {
        port = this._ensurePort();
      } catch (err) {
        reject(err);
        return;
      }
      const id = this._nextId++;
      const entry = { resolve, reject, onEvent, timer: null, abort: null };
      const done = () => {
        this._timers.clearTimeout(entry.timer);
        if (entry.abort) signal.removeEventListener('abort', entry.abort);
        this._pending.delete(id);
        this._chunks.delete(id);
      };
      entry.done = done;
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        entry.timer = this._timers.setTimeout(() => {
          done();
          this._sendCancel(id);
          reject(makeTransportError(TRANSPORT_CODES.TIMEOUT, `${method} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      }
      if (signal) {
        entry.abort = () => {
          done();
          this._sendCancel(id);
          reject(makeTransportError(CODES.CANCELLED, `${method} cancelled`, 'The request was cancelled.'));
        };
        signal.addEventListener('abort', entry.abort, { once: true });
      }
      this._pending.set(id, entry);
      const message = { id, method };
      if (params !== undefined) message.params = params;
      try {
        port.postMessage(message);
      } catch (err) {
        done();
        const t = transportError(err?.message);
        reject(makeTransportError(t.code, t.message, t.advice));
      }
    });
  }

  /** Sends `health`, records it in the status and returns the reply. */
  async health(options) {
    const reply = await this.request(METHODS.HEALTH, undefined, options);
    if (reply && reply.ok) this._setStatus({ state: 'connected', health: reply });
    return reply;
  }

  /** Closes the port and stops reconnecting; pending requests fail with HOST_EXITED. */
  close() {
    this._closed = true;
    this._timers.clearTimeout(this._reconnectTimer);
    const port = this._port;
    this._port = null;
    try {
      port?.disconnect();
    } catch {
      // already gone
    }
    this._failAll(transportError('Native host has exited.'));
    this._setStatus({ state: 'idle' });
  }

  /** Connects now if not connected (also cancels a pending backoff wait). */
  connect() {
    this._closed = false;
    this._ensurePort();
  }

  _ensurePort() {
    if (this._port) return this._port;
    this._timers.clearTimeout(this._reconnectTimer);
    this._reconnectTimer = null;
    let port;
    try {
      port = this._connect();
    } catch (err) {
      const t = transportError(err?.message);
      this._setStatus({ state: 'error', error: t });
      throw makeTransportError(t.code, t.message, t.advice);
    }
    this._port = port;
    this._gotMessage = false;
    this._setStatus({ ...this._status, state: 'connecting', error: undefined });
    port.onMessage.addListener((msg) => {
      if (this._port !== port) return;
      this._onMessage(msg);
    });
    port.onDisconnect.addListener(() => {
      const message = port.error?.message || this._lastError();
      if (this._port !== port) return;
      this._onDisconnect(message);
    });
    if (this._probe) {
      const probe = this._send(METHODS.HEALTH, undefined, { timeoutMs: HEALTH_TIMEOUT_MS }).then((reply) => {
        if (this._port === port && reply?.ok) this._setStatus({ state: 'connected', health: reply });
        return reply;
      });
      this._healthWait = probe;
      const clear = () => { if (this._healthWait === probe) this._healthWait = null; };
      probe.then(clear, clear);
    }
    return port;
  }

  _onMessage(msg) {
    if (!this._gotMessage) {
      this._gotMessage = true;
      this._failures = 0;
      if (this._status.state !== 'connected') this._setStatus({ ...this._status, state: 'connected', error: undefined });
    }
    if (!msg || typeof msg !== 'object') return;
    if (typeof msg.event === 'string') {
      const entry = msg.id !== undefined && msg.id !== null ? this._pending.get(msg.id) : undefined;
      if (entry) {
        try {
          entry.onEvent?.(msg);
        } catch {
          // a listener's bug must not break the client
        }
      } else {
        this._emit(msg.event, msg);
      }
      return;
    }
    if (msg.id === null || msg.id === undefined) {
      this._emit('orphan', msg);
      return;
    }
    if (typeof msg.chunk === 'number' && typeof msg.chunks === 'number' && typeof msg.data === 'string') {
      this._onChunk(msg);
      return;
    }
    this._settle(msg.id, msg);
  }

  _onChunk({ id, chunk, chunks, data }) {
    if (!this._pending.has(id)) return;
    let buf = this._chunks.get(id);
    if (chunk === 0) {
      buf = { chunks, parts: [] };
      this._chunks.set(id, buf);
    }
    if (!buf || buf.chunks !== chunks || buf.parts.length !== chunk) {
      this._fail(id, makeTransportError(TRANSPORT_CODES.HOST_ERROR, `chunk ${chunk}/${chunks} of reply ${id} out of order`));
      return;
    }
    buf.parts.push(data);
    if (buf.parts.length < chunks) return;
    this._chunks.delete(id);
    let reply;
    try {
      reply = JSON.parse(buf.parts.join(''));
    } catch (err) {
      this._fail(id, makeTransportError(TRANSPORT_CODES.HOST_ERROR, `reassembled reply ${id} is not JSON: ${err.message}`));
      return;
    }
    this._settle(id, reply);
  }

  _settle(id, reply) {
    const entry = this._pending.get(id);
    if (!entry) return;
    entry.done();
    entry.resolve(reply);
  }

  _fail(id, err) {
    const entry = this._pending.get(id);
    if (!entry) return;
    entry.done();
    entry.reject(err);
  }

  _failAll(t) {
    for (const id of [...this._pending.keys()]) this._fail(id, makeTransportError(t.code, t.message, t.advice));
  }

  _onDisconnect(message) {
    this._port = null;
    const t = transportError(message);
    this._failAll(t);
    this._failures = this._gotMessage ? 1 : this._failures + 1;
    this._setStatus({ state: 'error', error: t, health: undefined });
    if (this._autoReconnect && !this._closed) {
      const delay = cappedExponential(this._failures, this._backoffMs, this._maxBackoffMs);
      this._reconnectTimer = this._timers.setTimeout(() => {
        this._reconnectTimer = null;
        if (!this._port && !this._closed) {
          try {
            this._ensurePort();
          } catch {
            // status already says why; the next disconnect schedules the next try
          }
        }
      }, delay);
    }
  }

  _sendCancel(id) {
    if (!this._port) return;
    try {
      this._port.postMessage({ id: `cancel-${id}`, method: METHODS.CANCEL, params: { id } });
    } catch {
      // the port is going away; nothing to cancel
    }
  }

  _setStatus(status) {
    for (const k of Object.keys(status)) if (status[k] === undefined) delete status[k];
    const before = JSON.stringify(this._status);
    this._status = status;
    if (JSON.stringify(status) !== before) this._emit('status', this.status());
  }

  _emit(name, value) {
    for (const fn of this._listeners.get(name) || []) {
      try {
        fn(value);
      } catch {
        // a listener's bug must not break the client
      }
    }
  }
}
