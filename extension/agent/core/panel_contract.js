// The messages between the Side Panel and the browser agent's worker half,
// both halves in one module (as shared/host_proxy.js is for host requests):
//
// - the panel's browser link (createBrowserLink) sends AGENT.ATTACH, OBSERVE,
//   ACT and DETACH (runtime.sendMessage); the worker's handlers read them with
//   readAttach and readAct and answer with the reply builders;
// - the agent port (PORTS.AGENT): the panel says HELLO with its session and
//   window, the worker answers READY, the panel PINGs to keep the worker
//   alive (connectPanelPort, servePanelPort);
// - on that port the worker pushes what a page's Page Assistant asked of the
//   panel (pagePush, through toPanel); the panel reads it with readPagePush;
//   and that the desktop offer changed (desktopPush, to every panel).
//
// Pure: each half takes its chrome.* pieces (send, connect, the port) as
// arguments, so both run under node --test with fakes.

import { AGENT, AGENT_PORT, PORTS } from '../../shared/core/messages.js';

/** How often the panel pings the worker, which Chrome stops after 30 s without events. */
export const KEEPALIVE_MS = 20000;
/** How soon the panel reconnects after the worker restarted. */
export const RECONNECT_MS = 100;

/** The runtime port's name (chrome.runtime.connect({name})). */
export const PANEL_PORT_NAME = PORTS.AGENT;

// ---- Requests: panel → worker handlers (AGENT.*) ----

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
  return {
    sessionId: String(m.sessionId),
    action: m.action,
    coordinateMode: m.coordinateMode === 'absolute' ? 'absolute' : 'normalized',
    step: Number.isInteger(m.step) ? m.step : undefined,
  };
}

/** The worker's replies, one per request. */
export const reply = Object.freeze({
  attached: (tab) => ({ ok: true, tabId: tab.id, url: tab.url, title: tab.title }),
  observed: (observation) => ({ ok: true, observation }),
  acted: (result) => ({ ok: true, result }),
  detached: () => ({ ok: true }),
});

/**
 * The panel half of the requests: the `browser` interface AgentSession needs.
 * @param {{sessionId:string, windowId?:number, coordinateMode?:string, send:(m:object) => Promise<object>}} o
 */
export function createBrowserLink({ sessionId, windowId, coordinateMode, send }) {
  async function call(type, extra = {}) {
    const res = await send({ type, sessionId, ...extra });
    if (!res || res.ok === false) throw new Error(res?.error || `${type} got no answer`);
    return res;
  }
  return {
    async start(opts = {}) {
      const r = await call(AGENT.ATTACH, { windowId, resume: Boolean(opts.resume), tabId: opts.tabId, preferTabId: opts.preferTabId });
      return { tabId: r.tabId, url: r.url, title: r.title };
    },
    async observe() {
      return (await call(AGENT.OBSERVE)).observation;
    },
    async act(action, { step } = {}) {
      return (await call(AGENT.ACT, { action, coordinateMode, step })).result;
    },
    async stop() {
      await call(AGENT.DETACH);
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
