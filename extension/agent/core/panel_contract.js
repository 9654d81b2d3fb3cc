// The messages between the agent's extension pages (the Side Panel; the
// options page's Agent view shows the same desktop grants) and the agent's
// worker half, both halves in one module (as shared/host_proxy.js is for
// host requests):
//
// - requests (runtime.sendMessage): the panel's one link (createPanelLink)
//   sends AGENT.* (the tab: attach, observe, act, detach), DESKTOP.* (the
//   desktop: its state, screenshot, actions, Stop, the profile check and the
//   agent's grants), PAGE_ASSISTANT.* (the setting, a run's events for a
//   page's bar) and ACTIVITY.TASK (a task's entry in the activity log, which
//   the chat bridge's worker half keeps and reads); the agent's handlers read
//   each with a read* function and answer with the reply builders; a refusal
//   carries a code (reply.failed), which the link's error keeps;
// - the agent port (PORTS.AGENT): the panel says HELLO with its session and
//   window, the worker answers READY, the panel PINGs to keep the worker
//   alive (connectPanelPort, servePanelPort);
// - on that port the worker pushes what a page's Page Assistant asked of the
//   panel (pagePush, through toPanel); the panel reads it with readPagePush;
//   and that the desktop offer changed (desktopPush, to every panel).
//
// Pure: each half takes its chrome.* pieces (send, connect, the port) as
// arguments, so both run under node --test with fakes.

import { CodedError } from '../../shared/core/coded_error.js';
import { ACTIVITY, AGENT, AGENT_PORT, DESKTOP, PAGE_ASSISTANT, PORTS } from '../../shared/core/messages.js';

/** How often the panel pings the worker, which Chrome stops after 30 s without events. */
export const KEEPALIVE_MS = 20000;
/** How soon the panel reconnects after the worker restarted. */
export const RECONNECT_MS = 100;

/** The runtime port's name (chrome.runtime.connect({name})). */
export const PANEL_PORT_NAME = PORTS.AGENT;

/** The code of a desktop that is not offered (no server with a screenshot tool a profile can use). */
export const NOT_OFFERED = 'not_offered';

/** A request the worker refused or never answered; code is the worker's (a host code such as FORBIDDEN) when it gave one. */
export class LinkError extends CodedError {}

const coordinateModeOf = (m) => (m === 'absolute' ? 'absolute' : 'normalized');
const stepOf = (n) => (Number.isInteger(n) ? n : undefined);
const sessionOf = (id) => (id === undefined || id === null ? undefined : String(id));

// ---- Requests: what the worker's handlers read ----

/** The fields of an AGENT.ATTACH the worker uses. */
export function readAttach(m) {
  return {
    sessionId: String(m.sessionId),
    windowId: m.windowId,
    resume: m.resume === true,
    tabId: m.tabId,
    preferTabId: Number.isInteger(m.preferTabId) ? m.preferTabId : undefined,
  };
}

/** The fields of an AGENT.ACT the worker uses: the coordinate mode is 'absolute' or 'normalized'. */
export function readAct(m) {
  return { sessionId: String(m.sessionId), action: m.action, coordinateMode: coordinateModeOf(m.coordinateMode), step: stepOf(m.step) };
}

/**
 * The fields of a DESKTOP.STATE or OBSERVE: the task's session (none for the
 * panel's own STATE questions) and its activity key.
 */
export function readDesktop(m) {
  return {
    sessionId: sessionOf(m.sessionId),
    task: typeof m.task === 'string' && m.task ? m.task.slice(0, 200) : undefined,
    taskText: typeof m.taskText === 'string' ? m.taskText.slice(0, 500) : '',
  };
}

/** The fields of a DESKTOP.ACT: readDesktop's, the action, the coordinate mode and the step. */
export function readDesktopAct(m) {
  return { ...readDesktop(m), action: m.action, coordinateMode: coordinateModeOf(m.coordinateMode), step: stepOf(m.step) };
}

/** The fields of a DESKTOP.STOP: the session whose call in flight stops, and the task whose typing choices end with it. */
export function readDesktopStop(m) {
  return { sessionId: sessionOf(m.sessionId), task: typeof m.task === 'string' && m.task ? m.task.slice(0, 200) : undefined };
}

/** The fields of a DESKTOP.CHECK_PROFILE: a profile (null: back to the built-in) for a server's prefix, saved when it fits. */
export function readProfileCheck(m) {
  const profile = m.profile && typeof m.profile === 'object' && !Array.isArray(m.profile) ? m.profile : null;
  return { prefix: typeof m.prefix === 'string' ? m.prefix.trim() : '', profile, save: m.save === true };
}

/**
 * The fields of a DESKTOP.SET_GRANTS: the kind grants ({look, point, type} ->
 * decision, as sent: the worker checks them) and whether the person ticked
 * that typing without asking is meant.
 */
export function readGrants(m) {
  return { kinds: m.kinds && typeof m.kinds === 'object' && !Array.isArray(m.kinds) ? m.kinds : {}, typingConfirmed: m.typingConfirmed === true };
}

/** The fields of a DESKTOP.FORGET_CHOICES: the ids of the remembered choices to forget, or null for all. */
export function readForget(m) {
  return { ids: Array.isArray(m.ids) ? m.ids.map(String) : null };
}

/** The fields of a PAGE_ASSISTANT.SET_ENABLED. */
export function readSetEnabled(m) {
  return { enabled: m.enabled === true };
}

/** The fields of a PAGE_ASSISTANT.RELAY: the tab whose bar gets the event; null when either is missing. */
export function readRelay(m) {
  if (!Number.isInteger(m.tabId) || typeof m.event?.type !== 'string') return null;
  return { tabId: m.tabId, event: m.event };
}

/** The worker's replies. */
export const reply = Object.freeze({
  attached: (tab) => ({ ok: true, tabId: tab.id, url: tab.url, title: tab.title }),
  observed: (observation) => ({ ok: true, observation }),
  acted: (result) => ({ ok: true, result }),
  detached: () => ({ ok: true }),
  /** A refusal the panel tells apart by its code (a host code: FORBIDDEN, PROVIDER_UNAVAILABLE…). */
  failed: (code, error) => ({ ok: false, code: String(code), error: String(error) }),
});

// ---- Requests: the panel's half ----

/**
 * The panel's one link to the worker. send is runtime.sendMessage (the
 * panel guards it: a worker that went away is said in words, worker_stop.js).
 * tab() and desktop() are the surfaces AgentSession drives (start, observe,
 * act, stop; core/desktop_surface.js puts them together) and throw a
 * LinkError on a refusal; the other requests resolve with the worker's
 * answer, or {ok: false, error} when there was none, and never throw (the
 * views show what they say).
 * @param {(m: object) => Promise<object>} send
 */
export function createPanelLink(send) {
  async function call(type, fields = {}) {
    const res = await send({ type, ...fields });
    if (!res || res.ok === false) throw new LinkError(res?.code || 'refused', res?.error || `${type} got no answer`);
    return res;
  }
  // Sent at once (a Stop must not wait a turn); whatever happens, an answer.
  function ask(type, fields = {}) {
    let sent;
    try {
      sent = Promise.resolve(send({ type, ...fields }));
    } catch (err) {
      sent = Promise.reject(err);
    }
    return sent.then((r) => r || { ok: false, error: `${type} got no answer` }, (err) => ({ ok: false, error: String(err?.message || err) }));
  }
  return {
    /**
     * The tab of a run.
     * @param {{sessionId:string, windowId?:number, coordinateMode?:string}} o
     */
    tab({ sessionId, windowId, coordinateMode }) {
      return {
        async start(opts = {}) {
          const r = await call(AGENT.ATTACH, { sessionId, windowId, resume: Boolean(opts.resume), tabId: opts.tabId, preferTabId: opts.preferTabId });
          return { tabId: r.tabId, url: r.url, title: r.title };
        },
        async observe() {
          return (await call(AGENT.OBSERVE, { sessionId })).observation;
        },
        async act(action, { step } = {}) {
          return (await call(AGENT.ACT, { sessionId, action, coordinateMode, step })).result;
        },
        async stop() {
          await call(AGENT.DETACH, { sessionId });
        },
      };
    },
    /**
     * The desktop of a run. Each request carries the task's activity key
     * (its host calls are logged under the task). act() stops the worker's
     * call at once when its signal aborts (Stop, Pause), before the session
     * lets go of the surfaces.
     * @param {{sessionId:string, coordinateMode?:string, taskKey?:() => string, taskText?:() => string}} o
     *   taskText: the task's words, which the approval window shows
     */
    desktop({ sessionId, coordinateMode, taskKey, taskText }) {
      const fields = (extra = {}) => ({ sessionId, task: taskKey?.(), taskText: taskText?.(), ...extra });
      return {
        /** The desktop the task moves to: {title, url, server, grants?} (grants: see DESKTOP.STATE); throws when it is not offered. */
        async start() {
          const st = await call(DESKTOP.STATE, fields());
          if (!st.offered) throw new LinkError(NOT_OFFERED, st.why);
          return { title: `Desktop (${st.prefix})`, url: '', server: st.prefix, ...(st.grants ? { grants: st.grants } : {}) };
        },
        async observe() {
          return (await call(DESKTOP.OBSERVE, fields())).observation;
        },
        async act(action, { step, signal } = {}) {
          const stopNow = () => { ask(DESKTOP.STOP, { sessionId }); };
          signal?.addEventListener('abort', stopNow, { once: true });
          try {
            return (await call(DESKTOP.ACT, fields({ action, coordinateMode, step }))).result;
          } finally {
            signal?.removeEventListener('abort', stopNow);
          }
        },
        async stop() {
          await call(DESKTOP.STOP, { sessionId, task: taskKey?.() });
        },
      };
    },
    /** What the desktop is now, for the panel's own views: {ok, offered, prefix, profile, custom, why}. */
    desktopState: () => ask(DESKTOP.STATE),
    /** Checks a profile against the host's tools (and saves it when it fits and save is set); null profile: the built-in again. */
    checkProfile: ({ prefix, profile, save }) => ask(DESKTOP.CHECK_PROFILE, { prefix, profile, save }),
    /** The agent's desktop grants by kind: {ok, offered, configured, kinds, suggested, toolKinds, choices, …}. */
    desktopGrants: () => ask(DESKTOP.GET_GRANTS),
    /**
     * Saves the agent's desktop grants by kind ({look, point, type} -> 'allow'|'ask'|'deny');
     * typingConfirmed: the person ticked that typing without asking is meant. {ok, decisions, kinds, choices}.
     */
    saveDesktopGrants: (kinds, { typingConfirmed = false } = {}) => ask(DESKTOP.SET_GRANTS, { kinds, typingConfirmed }),
    /** Forgets the agent's remembered desktop choices with these ids (null: all): {ok, choices}. */
    forgetDesktopChoices: (ids) => ask(DESKTOP.FORGET_CHOICES, { ids }),
    /** Turns the Page Assistant on or off (its page access already granted). */
    setPageAssistant: (enabled) => ask(PAGE_ASSISTANT.SET_ENABLED, { enabled }),
    /** Hands one run event to the bar of tabId. */
    relayToPage: (tabId, event) => ask(PAGE_ASSISTANT.RELAY, { tabId, event }),
    /**
     * Records a task's outcome in the activity log (bridge/worker/activity_log.js redacts and keeps it;
     * a task that asked and went on keeps one entry: its conversation and seq name it). Never waits.
     * @param {{conversation: string, seq?: number, task?: string, steps?: number, outcome: string, text?: string, url?: string}} t
     *   url: the page it ran on
     */
    recordTask({ conversation, seq, task, steps, outcome, text, url }) {
      ask(ACTIVITY.TASK, { conversation, seq, task, steps, outcome, text, url });
    },
  };
}

// ---- The agent port (PORTS.AGENT) ----

/**
 * The panel half of the port: says HELLO, resolves on READY, pings, and
 * reconnects with the same session id when the worker restarts.
 * @param {{connect:() => object, sessionId:string, windowId?:number, onPush?:(push:object) => void, onDesktop?:() => void}} o
 *   connect opens a runtime port named PANEL_PORT_NAME; onPush gets readPagePush's reading of each push;
 *   onDesktop is called when the worker says the desktop offer changed, and on every READY (a change
 *   may have come before the port was open, or while the worker restarted)
 * @returns {Promise<{disconnect():void}>} once the worker registered the session
 */
export function connectPanelPort({ connect, sessionId, windowId, onPush, onDesktop }) {
  let port;
  let timer;
  let closed = false;
  function open(resolve) {
    port = connect();
    port.onMessage.addListener((m) => {
      if (m?.type === AGENT_PORT.READY) {
        resolve?.();
        onDesktop?.();
        return;
      }
      if (m?.type === AGENT_PORT.DESKTOP_CHANGED) { onDesktop?.(); return; }
      const push = readPagePush(m);
      if (push) onPush?.(push);
    });
    port.onDisconnect.addListener(() => {
      if (!closed) setTimeout(() => open(null), RECONNECT_MS);
    });
    port.postMessage({ type: AGENT_PORT.HELLO, sessionId, windowId });
  }
  return new Promise((resolve) => {
    open(resolve);
    timer = setInterval(() => { try { port.postMessage({ type: AGENT_PORT.PING }); } catch { /* reconnecting */ } }, KEEPALIVE_MS);
  }).then(() => ({
    disconnect() {
      closed = true;
      clearInterval(timer);
      port.disconnect();
    },
  }));
}

/**
 * The worker half of the port (already checked to come from our pages):
 * registers the session on its first HELLO, answers READY, and reports the
 * port's end. PINGs only keep the service worker alive.
 * @param {object} port
 * @param {{onHello:(sessionId:string, windowId:number, port:object) => void, onGone:(sessionId:string|undefined) => void}} hooks
 */
export function servePanelPort(port, { onHello, onGone }) {
  let sessionId;
  port.onMessage.addListener((msg) => {
    if (msg?.type !== AGENT_PORT.HELLO || typeof msg.sessionId !== 'string' || sessionId) return;
    sessionId = msg.sessionId;
    onHello(sessionId, msg.windowId, port);
    port.postMessage({ type: AGENT_PORT.READY });
  });
  port.onDisconnect.addListener(() => onGone(sessionId));
}

// ---- Pushes: worker → panel, from a page's Page Assistant ----

const PUSH_TYPES = Object.freeze({ task: AGENT_PORT.PAGE_TASK, stop: AGENT_PORT.PAGE_STOP, pause: AGENT_PORT.PAGE_PAUSE, resume: AGENT_PORT.PAGE_RESUME });
const PUSH_KINDS = Object.fromEntries(Object.entries(PUSH_TYPES).map(([k, v]) => [v, k]));

/** Where a page's task starts: the tab (the bar's page) unless it asked for the desktop. */
const surfaceOf = (s) => (s === 'desktop' ? 'desktop' : 'tab');

/**
 * A push for the panel: kind 'task' (with task, reply, acted, surface: 'tab' or 'desktop'),
 * 'stop', 'pause' or 'resume', from tabId's bar.
 * @param {'task'|'stop'|'pause'|'resume'} kind
 */
export function pagePush(kind, tabId, { task, reply: isReply, acted, surface } = {}) {
  if (!PUSH_TYPES[kind]) throw new Error(`unknown page push ${JSON.stringify(kind)}`);
  const m = { type: PUSH_TYPES[kind], tabId };
  if (kind === 'task') Object.assign(m, { task: String(task), reply: isReply === true, acted: acted === true, surface: surfaceOf(surface) });
  return m;
}

/** The panel's reading of a push: {kind, tabId, task?, reply?, acted?, surface?}, or null for anything else. */
export function readPagePush(m) {
  const kind = PUSH_KINDS[m?.type];
  if (!kind) return null;
  const push = { kind, tabId: m.tabId };
  if (kind === 'task') Object.assign(push, { task: String(m.task ?? ''), reply: m.reply === true, acted: m.acted === true, surface: surfaceOf(m.surface) });
  return push;
}

// ---- Push: worker → every panel, the desktop offer changed ----

/** Tells a panel the desktop offer changed; it asks the worker for the state itself (DESKTOP.STATE). */
export function desktopPush() {
  return { type: AGENT_PORT.DESKTOP_CHANGED };
}
