// The browser.* tools of a chat site that drive a tab through
// chrome.debugger: the screenshot, the readable content, and clicks, drags,
// scrolls, typing and keys at 0–999 coordinates of the last screenshot or at
// an element reference. They run on the tab engine (shared/tab_driver.js,
// shared/tab_reader.js), the same code the side-panel agent drives tabs
// with; the debugger is attached for one call and let go when it ends,
// however it ends. browser_calls.js judges each call first (grant,
// arguments, shared tab, approval) and runs it here. Only the Chromium
// background loads this module (background.js hands TAB_TOOLS to
// useTabTools): Firefox has no chrome.debugger, so its background and its
// package leave it out, and these tools are listed there as unavailable.
import { LOAD_WAIT_MS, Refused, tabLine, tabLoaded, toolText } from './browser_calls.js';
import { session } from './site_state.js';
import { attachTab, captureTab, detachTab, runAction, sendTo, viewportOf } from '../../shared/tab_driver.js';
import { pointOfRef, readTab } from '../../shared/tab_reader.js';
import { toCss } from '../../shared/core/coords.js';
import { actionSleep } from '../../shared/core/cdp_input.js';

// ---- where x and y point: the site's last screenshot or read of the tab ----

/** storage.session: each site's last screenshot (or read) of each tab, whose viewport x and y are read against. */
const FRAMES_KEY = 'browser.frames';

const frameKey = (origin, tabId) => `${origin} ${tabId}`;

async function rememberFrame(origin, tabId, viewport) {
  const frames = (await session.get(FRAMES_KEY))[FRAMES_KEY] || {};
  frames[frameKey(origin, tabId)] = { width: viewport.width, height: viewport.height };
  await session.set({ [FRAMES_KEY]: frames });
}

async function frameOf(origin, tabId) {
  const frames = (await session.get(FRAMES_KEY))[FRAMES_KEY] || {};
  return frames[frameKey(origin, tabId)] || null;
}

// ---- the debugger, attached for one call -----------------------------------

/**
 * Runs fn with the debugger attached to the tab for this site, and lets go
 * of it after, however fn ends. Meanwhile c.nav follows the main frame: a
 * navigation an action starts (a form sent, a link followed) is waited for.
 */
async function withDebugger(c, fn) {
  await attachTab(c.tabId, `the chat site ${c.origin}`);
  const nav = { main: null, requested: false, committed: false };
  const onEvent = (source, method, params) => {
    if (source.tabId !== c.tabId) return;
    if ((method === 'Page.frameRequestedNavigation' || method === 'Page.frameStartedLoading') && params.frameId === nav.main) nav.requested = true;
    if (method === 'Page.frameNavigated' && !params.frame?.parentId) nav.committed = true;
  };
  chrome.debugger.onEvent.addListener(onEvent);
  try {
    nav.main = (await sendTo(c.tabId, 'Page.getFrameTree')).frameTree.frame.id;
    c.nav = nav;
    return await fn((method, params) => sendTo(c.tabId, method, params));
  } finally {
    chrome.debugger.onEvent.removeListener(onEvent);
    await detachTab(c.tabId);
  }
}

/** After an action: a navigation it started is waited for until its page has loaded (at most LOAD_WAIT_MS). */
async function settled(c) {
  await actionSleep(200, c.signal);
  for (let waited = 0; c.nav?.requested && !c.nav.committed && waited < LOAD_WAIT_MS; waited += 50) await actionSleep(50, c.signal);
  await tabLoaded(c.tabId, c.signal, 0);
}

/** The CSS point a place ({x, y} on the last screenshot, or {ref}) names, with a note when something lies over it. */
async function pointOf(c, where, send) {
  if (where.ref !== undefined) {
    const p = await pointOfRef(where.ref, send);
    if (p.error) throw new Refused(p.error);
    return { point: { x: p.x, y: p.y }, note: p.covered ? ` (the page shows ${p.covered} over ${where.ref} there)` : '' };
  }
  const frame = await frameOf(c.origin, c.tabId);
  if (!frame) throw new Refused(`there is no screenshot of tab ${c.tabId} yet: x and y are 0 to 999 on the tab's last browser.screenshot (or browser.read), so take one first`);
  return { point: toCss([where.x, where.y], frame, 'normalized'), note: '' };
}

/** Runs one engine action on the tab; its own words, and what to do next. */
async function act(c, send, action, note = '') {
  const r = await runAction({
    tabOf: () => c.tabId,
    action,
    signal: c.signal,
    currentUrl: async () => {
      const t = await chrome.tabs.get(c.tabId).catch(() => null);
      return t ? t.pendingUrl || t.url || '' : '';
    },
    settle: () => settled(c),
  });
  if (r.error) throw new Refused(r.text);
  return toolText(`${r.text}${note}. Take browser.screenshot or browser.read to see the tab now.`);
}

const pointer = (name) => async (c) => withDebugger(c, async (send) => {
  const { point, note } = await pointOf(c, c.args, send);
  return act(c, send, { name, args: { point } }, note);
});

/** The tools, by the tool name of core/browser_tools.js; each takes the judged call {origin, chatTabId, tabId, args, signal}. */
export const TAB_TOOLS = Object.freeze({
  screenshot: (c) => withDebugger(c, async () => {
    const shot = await captureTab(c.tabId);
    await rememberFrame(c.origin, c.tabId, shot.viewport);
    const tab = await chrome.tabs.get(c.tabId);
    const { width, height } = shot.viewport;
    return {
      content: [
        { type: 'text', text: `Screenshot of ${tabLine(tab)}. The view is ${width}×${height} CSS pixels. To point at something in it, give x and y from 0 to 999 across this image whatever its size: 0,0 is its top-left corner and 999,999 its bottom-right. browser.read gives the same page as text, with element references.` },
        { type: 'image', data: shot.image, mimeType: shot.mime },
      ],
    };
  }),
  read: (c) => withDebugger(c, async (send) => {
    const r = await readTab(c.tabId, send);
    await rememberFrame(c.origin, c.tabId, r.viewport);
    return toolText(r.text);
  }),
  click: pointer('Click'),
  double_click: pointer('DoubleClick'),
  right_click: pointer('RightClick'),
  hover: pointer('Hover'),
  drag: (c) => withDebugger(c, async (send) => {
    const from = await pointOf(c, c.args.from, send);
    const to = await pointOf(c, c.args.to, send);
    return act(c, send, { name: 'Drag', args: { start: from.point, end: to.point } }, from.note || to.note);
  }),
  scroll: (c) => withDebugger(c, async (send) => {
    let where = { point: null, note: '' };
    if (c.args.ref !== undefined || c.args.x !== undefined) where = await pointOf(c, c.args, send);
    else {
      const v = await viewportOf(c.tabId);
      where.point = { x: v.width / 2, y: v.height / 2 };
    }
    return act(c, send, { name: 'Scroll', args: { point: where.point, direction: c.args.direction } }, where.note);
  }),
  type: (c) => withDebugger(c, (send) => act(c, send, { name: 'Type', args: { content: c.args.text } })),
  key: (c) => withDebugger(c, (send) => act(c, send, { name: 'Hotkey', args: { keys: c.args.keys, repeat: c.args.repeat ?? 1 } })),
});
