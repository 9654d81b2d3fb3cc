// "Ask each time": the calls waiting for the person's answer. The worker keeps
// each pending approval here, under a random token; the approval window gets
// only the token in its URL and asks the worker for the rest, so nothing a page
// can read or guess names a pending call. Also what the window shows: the
// arguments as exact, visible JSON and the countdown; and when a click or a
// key on one of its Allow buttons counts (DeliberateAct). Pure: no chrome.* and no DOM.

/** The toolbar badge while a call waits for the person. */
export const APPROVAL_BADGE = Object.freeze({ text: '?', color: '#9a6700', title: 'Gnosis: waiting for your approval' });

/** The approval window's size (CSS pixels). */
export const APPROVAL_WINDOW = Object.freeze({ width: 540, height: 700 });

/** How long after the window is shown, or after the last click or key in it before then, a pointer click on an Allow button starts to count (ms). */
export const ARMING_DELAY_MS = 1000;

/**
 * How long the window must have had the focus with no key pressed, held or
 * released before Enter or Space on an Allow button counts (ms).
 */
export const KEY_QUIET_MS = 1500;

/** How far the pointer must move inside the window (since it showed the buttons, or since the last press) before a click counts (CSS px). */
export const MOVE_MIN_PX = 8;

/**
 * How close to the window's edge the pointer must first be seen for that to
 * count as coming in from outside, when it was never seen leaving (CSS px).
 */
export const ENTRY_EDGE_PX = 12;

/** Presses that could not allow (too soon, no entry, beside the buttons) at which the window denies the call. */
export const MAX_STRAYS = 2;

/**
 * Decides whether an act on an Allow button is deliberate. Keys typed into
 * the chat before the window appeared, held across its opening, or pressed in
 * its first moments never approve, and neither do clicks a page made someone
 * keep making at a spot ("click as fast as you can", "click the dot"):
 *   - the window arms armMs after it is shown; a click or a key anywhere in it
 *     before then starts the wait again, so a stream of clicks never arms it;
 *   - a pointer click counts once the window is armed, the pointer has come
 *     into the window from outside (seen leaving and coming back, or first
 *     seen at its edge: a window that opened under a resting pointer does not
 *     count as entered), and it has moved at least moveMinPx inside it since
 *     the buttons showed and since the last press: a pointer that stays put,
 *     or that was already where the window opened, never allows;
 *   - a press that could not allow (too soon, before the pointer came in, or
 *     beside the buttons) is a stray: it uses up the entry (the pointer must
 *     leave and come back), and after maxStrays of them the window denies;
 *   - Enter or Space counts only when the window has had the focus for
 *     quietMs, no key went down or up in that time, no other key is held, and
 *     the key is not an auto-repeat. So Tab then Enter right away does
 *     nothing; Tab, a pause, then Enter allows.
 * Deny needs none of this: any key or click on it denies at once.
 */
export class DeliberateAct {
  /** @param {{armMs?: number, quietMs?: number, moveMinPx?: number, edgePx?: number, maxStrays?: number}} [options] */
  constructor({ armMs = ARMING_DELAY_MS, quietMs = KEY_QUIET_MS, moveMinPx = MOVE_MIN_PX, edgePx = ENTRY_EDGE_PX, maxStrays = MAX_STRAYS } = {}) {
    this.armMs = armMs;
    this.quietMs = quietMs;
    this.moveMinPx = moveMinPx;
    this.edgePx = edgePx;
    this.maxStrays = maxStrays;
    this.outside = null; // true: seen leaving; false: seen inside; null: not seen yet
    this.entered = false;
    this.strays = 0;
    this.shownAt = null;
    this.focusedAt = null;
    this.lastKeyAt = null;
    this.held = new Set();
    this.point = null; // where the pointer was last seen in the window (screen px)
    this.base = null; // where it was when the buttons showed or at the last press (or first seen after)
    this.moved = false;
  }

  /** The window shows the question (again: a confirmation step re-arms, and the pointer must move again). */
  shown(now) {
    this.shownAt = now;
    this.base = this.point;
    this.moved = false;
  }

  /** Whether the window is armed now. */
  armed(now) {
    return this.shownAt !== null && now - this.shownAt >= this.armMs;
  }

  /**
   * A click or a key press anywhere in the window (call after pointerAt for
   * a click). Before the window is armed it starts the wait again and the
   * pointer must move anew; returns true when it did.
   */
  press(now) {
    if (this.shownAt === null || this.armed(now)) return false;
    this.shown(now);
    return true;
  }

  /** The pointer was seen at (x, y) in screen pixels: a move, an entry, a press. */
  pointerAt(x, y) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    const here = { x, y };
    if (this.shownAt !== null) {
      if (!this.base) this.base = this.point || here;
      if (Math.hypot(here.x - this.base.x, here.y - this.base.y) >= this.moveMinPx) this.moved = true;
    }
    this.point = here;
  }

  /** The pointer left the window. */
  left() {
    this.outside = true;
  }

  /**
   * The pointer came over the window from outside it (an event whose related
   * target is nothing) at (x, y) of its viewport, w x h: an entry when it was
   * seen leaving, or when it is first seen at the window's edge.
   */
  came(x, y, w, h) {
    const atEdge = Math.min(x, y, w - x, h - y) <= this.edgePx;
    if (this.outside === true || (this.outside === null && atEdge)) this.entered = true;
    this.outside = false;
  }

  /**
   * A press that could not allow. It uses up the entry; returns true once
   * maxStrays of them were made (the window then denies).
   */
  stray() {
    this.entered = false;
    this.strays++;
    return this.strays >= this.maxStrays;
  }

  focus(now) {
    if (this.focusedAt === null) this.focusedAt = now;
  }

  blur() {
    this.focusedAt = null;
    this.held.clear();
  }

  /** A key went down (call after asking keyAllows about it). */
  keyDown(key, now) {
    this.held.add(key);
    this.lastKeyAt = now;
  }

  keyUp(key, now) {
    this.held.delete(key);
    this.lastKeyAt = now;
  }

  /** Whether a pointer click now is deliberate. */
  pointerAllows(now) {
    return this.armed(now) && this.moved && this.entered;
  }

  /** Why a pointer click now would not allow: 'soon', 'entry', 'move', or '' when it would. */
  pointerWhyNot(now) {
    if (!this.armed(now)) return 'soon';
    if (!this.entered) return 'entry';
    return this.moved ? '' : 'move';
  }

  /** Whether this keydown (Enter or Space on an Allow button) is deliberate. */
  keyAllows(key, now, repeat = false) {
    if (repeat || this.focusedAt === null || this.shownAt === null) return false;
    const quietSince = Math.max(this.focusedAt, this.shownAt, this.lastKeyAt ?? -Infinity);
    if (now - quietSince < this.quietMs) return false;
    return [...this.held].every((k) => k === key);
  }
}

/** Whether two rectangles ({left, top, right, bottom}) come within margin px of each other. */
export function rectsNear(a, b, margin = 0) {
  return a.left - margin < b.right && b.left - margin < a.right && a.top - margin < b.bottom && b.top - margin < a.bottom;
}

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
 * The arguments as the window shows them: pretty JSON (compact: on one
 * line), nothing shortened, and invisible or direction-changing characters
 * escaped. Still valid JSON that parses back to the same value.
 */
export function visibleJson(value, { compact = false } = {}) {
  const text = JSON.stringify(value === undefined ? {} : value, null, compact ? 0 : 2);
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON text of a value with object keys sorted at every depth: two values compare equal as this whatever their key order. */
export function canonicalJson(value) {
  const sort = (v) => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])]));
    return v;
  };
  return JSON.stringify(sort(value)) ?? 'null';
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
   *   title?: string, annotations?: object, timeoutMs?: number, subject?: string}} event
   *   subject: what the call acts on, when it is not in the arguments alone (a browser.* call's tab)
   * @param {{tabId?: number, desktop?: object|null}} [context] desktop: one of the agent's desktop
   *   calls ({kind, prefix, task, taskText, page, pageTitle, windowId, call}); its kind stands only
   *   when the host asks about that very call (same tool, same arguments), else it is null
   */
  add(event, { tabId, desktop = null } = {}) {
    const token = this._token();
    const timeoutMs = Number.isFinite(event.timeoutMs) && event.timeoutMs > 0 ? event.timeoutMs : 60_000;
    const e = {
      executeId: event.id, origin: String(event.origin ?? ''), capability: String(event.capability ?? ''),
      arguments: event.arguments ?? {}, title: event.title, annotations: event.annotations,
      ...(typeof event.subject === 'string' && event.subject ? { subject: event.subject } : {}),
      timeoutMs, deadline: this._now() + timeoutMs, tabId, windowId: null, answer: null, desktop: null,
    };
    if (desktop) {
      const same = desktop.call?.capability === e.capability && canonicalJson(desktop.call?.arguments ?? {}) === canonicalJson(e.arguments);
      e.desktop = { ...desktop, kind: same ? desktop.kind ?? null : null };
      delete e.desktop.call;
    }
    this._byToken.set(token, e);
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
    const desktop = e.desktop && {
      kind: e.desktop.kind, prefix: e.desktop.prefix, taskText: e.desktop.taskText || '', page: e.desktop.page || '', pageTitle: e.desktop.pageTitle || '',
    };
    return {
      origin: e.origin, capability: e.capability, title: e.title, annotations: e.annotations,
      // A desktop call's arguments are short; on one line what it types shows in the window's first view.
      argumentsJson: visibleJson(e.arguments, { compact: Boolean(desktop) }), deadline: e.deadline, timeoutMs: e.timeoutMs, answer: e.answer,
      ...(e.subject ? { subject: e.subject.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) } : {}),
      ...(desktop ? { desktop } : {}),
    };
  }
}
