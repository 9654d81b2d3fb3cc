// "Ask each time": the calls waiting for the person's answer. The worker keeps
// each pending approval here, under a random token; the approval window gets
// only the token in its URL and asks the worker for the rest, so nothing a page
// can read or guess names a pending call. Also what the window shows: the
// arguments as exact, visible JSON and the countdown. Pure: no chrome.* and no DOM.

/** The toolbar badge while a call waits for the person. */
export const APPROVAL_BADGE = Object.freeze({ text: '?', color: '#9a6700', title: 'Gnosis: waiting for your approval' });

/** The approval window's size (CSS pixels). */
export const APPROVAL_WINDOW = Object.freeze({ width: 520, height: 640 });

/** A random token: 128 bits as 32 hex digits. */
export function randomToken() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// Characters that change how text is shown without being seen (bidi controls,
// zero-width marks, the BOM): shown as \uXXXX escapes so the JSON on screen is
// exactly what runs. JSON.stringify already escapes the control characters.
const INVISIBLE = /[\ufe00-\ufe0f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0]/g;

/**
 * The arguments as the window shows them: pretty JSON, nothing shortened, and
 * invisible or direction-changing characters escaped. Still valid JSON that
 * parses back to the same value.
 */
export function visibleJson(value) {
  const text = JSON.stringify(value === undefined ? {} : value, null, 2);
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whole seconds left before the deadline (never negative), and as "m:ss". */
export function countdown(deadline, now) {
  const seconds = Math.max(0, Math.ceil((deadline - now) / 1000));
  return { seconds, text: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}` };
}

/**
 * The approvals waiting for an answer. An entry lives from the host's
 * "approval" event until its execute ends (whatever the answer).
 */
export class PendingApprovals {
  /**
   * @param {{token?: () => string, now?: () => number}} [options] sources of tokens and time (tests)
   */
  constructor({ token = randomToken, now = () => Date.now() } = {}) {
    this._token = token;
    this._now = now;
    this._byToken = new Map();
  }

  /**
   * Records the host's approval event for a call from tabId; returns its token.
   * @param {{id: number|string, origin: string, capability: string, arguments?: object,
   *   title?: string, annotations?: object, timeoutMs?: number}} event
   * @param {{tabId?: number}} [context]
   */
  add(event, { tabId } = {}) {
    const token = this._token();
    const timeoutMs = Number.isFinite(event.timeoutMs) && event.timeoutMs > 0 ? event.timeoutMs : 60_000;
    this._byToken.set(token, {
      executeId: event.id, origin: String(event.origin ?? ''), capability: String(event.capability ?? ''),
      arguments: event.arguments ?? {}, title: event.title, annotations: event.annotations,
      timeoutMs, deadline: this._now() + timeoutMs, tabId, windowId: null, answer: null,
    });
    return token;
  }

  /** The entry of a token, or undefined. */
  get(token) {
    return typeof token === 'string' ? this._byToken.get(token) : undefined;
  }

  /** Notes the window showing a token's approval. */
  setWindow(token, windowId) {
    const e = this.get(token);
    if (e) e.windowId = windowId;
  }

  /** The token whose approval a window shows, or undefined. */
  tokenOfWindow(windowId) {
    for (const [token, e] of this._byToken) if (e.windowId === windowId) return token;
    return undefined;
  }

  /**
   * Records the person's answer. Returns the entry the first time, null when
   * the token is unknown, already answered, or past its deadline.
   */
  answer(token, allow) {
    const e = this.get(token);
    if (!e || e.answer !== null || this._now() > e.deadline) return null;
    e.answer = allow ? 'allow' : 'deny';
    return e;
  }

  /** Drops a token (its execute ended). Returns the entry it held. */
  forget(token) {
    const e = this.get(token);
    this._byToken.delete(token);
    return e;
  }

  /** How many approvals are waiting. */
  get size() {
    return this._byToken.size;
  }

  /** What the approval window shows for a token, or null. */
  view(token) {
    const e = this.get(token);
    if (!e) return null;
    return {
      origin: e.origin, capability: e.capability, title: e.title, annotations: e.annotations,
      argumentsJson: visibleJson(e.arguments), deadline: e.deadline, timeoutMs: e.timeoutMs, answer: e.answer,
    };
  }
}
