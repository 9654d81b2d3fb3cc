// The Side Panel's view of the browser: RPC to the service worker (worker.js).
//
// Implements the `browser` interface AgentSession needs. Also opens the
// 'agent' port whose disconnection tells the worker to detach, and keeps the
// worker alive with pings while a long model request is in flight.

/**
 * @param {{sessionId:string, windowId?:number, coordinateMode?:string, send?:Function}} o
 */
export function createBrowserBridge(o) {
  const send = o.send || ((m) => chrome.runtime.sendMessage(m));
  async function call(type, extra = {}) {
    const res = await send({ type, sessionId: o.sessionId, ...extra });
    if (!res || res.ok === false) throw new Error(res?.error || `${type} got no answer`);
    return res;
  }
  return {
    async start(opts = {}) {
      const r = await call('agent.attach', { windowId: o.windowId, resume: Boolean(opts.resume), tabId: opts.tabId, preferTabId: opts.preferTabId });
      return { tabId: r.tabId, url: r.url, title: r.title };
    },
    async observe() {
      return (await call('agent.observe')).observation;
    },
    async act(action) {
      return (await call('agent.act', { action, coordinateMode: o.coordinateMode })).result;
    },
    async stop() {
      await call('agent.detach');
    },
  };
}

/**
 * Connects the panel's port. onMessage gets worker pushes ({type:'pageTask'…}).
 * Reconnects if the worker restarts; the session id stays the same.
 * @returns {Promise<{disconnect():void}>} resolves once the worker registered the session
 */
export function connectPanel({ sessionId, windowId, onMessage }) {
  let port;
  let timer;
  let closed = false;
  function open(resolve) {
    port = chrome.runtime.connect({ name: 'agent' });
    port.onMessage.addListener((m) => {
      if (m?.type === 'ready') resolve?.();
      else onMessage?.(m);
    });
    port.onDisconnect.addListener(() => {
      if (!closed) setTimeout(() => open(null), 100);
    });
    port.postMessage({ type: 'hello', sessionId, windowId });
  }
  return new Promise((resolve) => {
    open(resolve);
    timer = setInterval(() => { try { port.postMessage({ type: 'ping' }); } catch { /* reconnecting */ } }, 20000);
  }).then(() => ({
    disconnect() {
      closed = true;
      clearInterval(timer);
      port.disconnect();
    },
  }));
}
