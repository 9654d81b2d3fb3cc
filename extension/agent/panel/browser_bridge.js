// The Side Panel's view of the browser: RPC to the service worker (worker/worker.js).
//
// Implements the `browser` interface AgentSession needs. Also opens the
// 'agent' port whose disconnection tells the worker to detach, and keeps the
// worker alive with pings while a long model request is in flight.

import { AGENT, AGENT_PORT, PORTS } from '../../shared/core/messages.js';
import { isWorkerGone, workerStopped } from '../core/worker_stop.js';

/**
 * @param {{sessionId:string, windowId?:number, coordinateMode?:string, send?:Function}} o
 */
export function createBrowserBridge(o) {
  const send = o.send || ((m) => chrome.runtime.sendMessage(m));
  async function call(type, extra = {}) {
    let res;
    try {
      res = await send({ type, sessionId: o.sessionId, ...extra });
    } catch (err) {
      // The browser stopped the worker under the request: said in words by the session (core/worker_stop.js).
      throw isWorkerGone(err) ? workerStopped(err) : err;
    }
    if (!res || res.ok === false) throw new Error(res?.error || `${type} got no answer`);
    return res;
  }
  return {
    async start(opts = {}) {
      const r = await call(AGENT.ATTACH, { windowId: o.windowId, resume: Boolean(opts.resume), tabId: opts.tabId, preferTabId: opts.preferTabId });
      return { tabId: r.tabId, url: r.url, title: r.title };
    },
    async observe() {
      return (await call(AGENT.OBSERVE)).observation;
    },
    async act(action, { step } = {}) {
      return (await call(AGENT.ACT, { action, coordinateMode: o.coordinateMode, step })).result;
    },
    async stop() {
      await call(AGENT.DETACH);
    },
  };
}

/**
 * Connects the panel's port. onMessage gets worker pushes ({type: AGENT_PORT.PAGE_TASK…}).
 * Reconnects if the worker restarts; the session id stays the same.
 * @returns {Promise<{disconnect():void}>} resolves once the worker registered the session
 */
export function connectPanel({ sessionId, windowId, onMessage }) {
  let port;
  let timer;
  let closed = false;
  function open(resolve) {
    port = chrome.runtime.connect({ name: PORTS.AGENT });
    port.onMessage.addListener((m) => {
      if (m?.type === AGENT_PORT.READY) resolve?.();
      else onMessage?.(m);
    });
    port.onDisconnect.addListener(() => {
      if (!closed) setTimeout(() => open(null), 100);
    });
    port.postMessage({ type: AGENT_PORT.HELLO, sessionId, windowId });
  }
  return new Promise((resolve) => {
    open(resolve);
    timer = setInterval(() => { try { port.postMessage({ type: AGENT_PORT.PING }); } catch { /* reconnecting */ } }, 20000);
  }).then(() => ({
    disconnect() {
      closed = true;
      clearInterval(timer);
      port.disconnect();
    },
  }));
}
