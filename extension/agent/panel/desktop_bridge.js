// The Side Panel's view of the desktop: RPC to the service worker's desktop
// half (worker/desktop_worker.js). Implements the surface interface
// core/desktop_surface.js drives: start, observe, act, stop. Each call
// carries the task's activity key, so its host calls are logged under the
// task, and its words, which the approval window shows.

import { DESKTOP } from '../../shared/core/messages.js';

/**
 * @param {{sessionId:string, coordinateMode?:string, taskKey?:() => string, taskText?:() => string, send?:Function}} o
 */
export function createDesktopBridge(o) {
  const send = o.send || ((m) => chrome.runtime.sendMessage(m));
  async function call(type, extra = {}) {
    const res = await send({ type, sessionId: o.sessionId, task: o.taskKey?.(), taskText: o.taskText?.(), ...extra });
    if (!res || res.ok === false) throw new Error(res?.error || `${type} got no answer`);
    return res;
  }
  return {
    async start() {
      const st = await call(DESKTOP.STATE);
      if (!st.offered) throw new Error(st.why);
      return { title: `Desktop (${st.prefix})`, url: '', server: st.prefix };
    },
    async observe() {
      return (await call(DESKTOP.OBSERVE)).observation;
    },
    async act(action, { step } = {}) {
      return (await call(DESKTOP.ACT, { action, coordinateMode: o.coordinateMode, step })).result;
    },
    async stop() {
      await call(DESKTOP.STOP);
    },
  };
}

/** What the worker says about the desktop now: {offered, prefix, profile, why}. */
export async function desktopState(send = (m) => chrome.runtime.sendMessage(m)) {
  const r = await send({ type: DESKTOP.STATE }).catch((err) => ({ ok: false, error: String(err?.message || err) }));
  if (!r?.ok) return { offered: false, why: `The extension could not ask about it: ${r?.error || 'no answer'}.` };
  return r;
}
