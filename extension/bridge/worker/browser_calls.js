// Running one browser.* call of a chat site (call_runner.js hands them
// here; the host never sees them): judged like a host call, in the host's
// order — a tool of the catalogue (core/browser_tools.js) that this browser
// can run, granted to the site (browser_grants.js), arguments valid against
// its schema (core/schema_check.js), a tab the person shares with the site
// (core/tab_eligibility.js, browser_tabs.js), the person's answer when the
// site's grant says ask (the approval window, approval_window.js) — then run
// through the tab engine (shared/tab_driver.js, shared/tab_reader.js), the
// same code the side-panel agent drives tabs with. The debugger is attached
// for one call and let go when it ends, however it ends. The reply has the
// host's shape ({ok, capability, result: MCP CallToolResult} or {ok: false,
// code, message, details}), so the activity log, the result text and the
// image attachment take it as they take the host's. Nothing the shared page
// says decides anything here: its text reaches the model as a result only.
import { BROWSER_NAMES, browserCapabilities, browserTool } from '../core/browser_tools.js';
import { compileSchema, invalidArgumentsMessage, validate } from '../core/schema_check.js';
import { callVerdict, shareVerdict } from '../core/tab_eligibility.js';
import { browserDecision } from './browser_grants.js';
import { isShared, onUnshare, shareTab, sharedTabs } from './browser_tabs.js';
import { approvals, askPerson, closeApproval } from './approval_window.js';
import { session } from './site_state.js';
import { attachTab, captureTab, detachTab, runAction, sendTo, viewportOf } from '../../shared/tab_driver.js';
import { pointOfRef, readTab } from '../../shared/tab_reader.js';
import { oneLine } from '../../shared/core/readable.js';
import { toCss } from '../../shared/core/coords.js';
import { actionSleep } from '../../shared/core/cdp_input.js';
import { features } from '../../shared/browser.js';
import { CODES } from '../../shared/core/codes.js';

/** How long the person has to answer an "ask each time" question about a browser.* call (the host's default askTimeout). */
export const ASK_TIMEOUT_MS = 60_000;

/** The longest a navigation is waited for before the call answers anyway. */
const LOAD_WAIT_MS = 10_000;

/** storage.session: each site's last screenshot (or read) of each tab, whose viewport x and y are read against. */
const FRAMES_KEY = 'browser.frames';

/** The capabilities as this browser offers them, by name. */
const catalogue = () => new Map(browserCapabilities({ debugger: features().debugger }).map((c) => [c.name, c]));

const compiled = new Map(browserCapabilities().map((c) => [c.name, compileSchema(c.inputSchema)]));

/** An error a tool's run raises for the model: EXECUTION_ERROR with these words. */
class Refused extends Error {}

function failure(capability, code, message, details) {
  return { ok: false, error: true, code, capability, message, ...(details ? { details } : {}) };
}

/** A tab in a sentence: its id, title and address, with nothing hidden in them. */
function tabLine(tab) {
  return `tab ${tab.id}: “${oneLine(tab.title, 120) || 'no title'}” — ${oneLine(tab.pendingUrl || tab.url, 300)}`;
}

// ---- the calls in flight, so that unsharing a tab stops them ----------------

const running = new Set(); // {tabId, origin, abort: AbortController, unshared}

onUnshare(({ tabId, origin }) => {
  for (const r of running) {
    if (r.tabId === tabId && (origin === undefined || r.origin === origin)) {
      r.unshared = true;
      r.abort.abort();
    }
  }
});

// ---- where x and y point: the site's last screenshot or read of the tab ----

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

// ---- asking the person ------------------------------------------------------

/**
 * Opens the approval window for the call (or lets a choice for this session
 * answer it) and waits for the answer, the deadline or a Stop.
 * @returns {Promise<{verdict: 'allow'|'denied'|'timeout'|'stopped', token: string}>}
 */
function ask({ origin, chatTabId, capability, args, cap, subject, signal, extendLimit }) {
  extendLimit?.(ASK_TIMEOUT_MS);
  return new Promise((resolve) => {
    const token = approvals.add({
      id: null, origin, capability, arguments: args, title: cap.title, annotations: cap.annotations, timeoutMs: ASK_TIMEOUT_MS, subject,
    }, { tabId: chatTabId });
    let done = false;
    const finish = (verdict) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', stopped);
      resolve({ verdict, token });
    };
    const timer = setTimeout(() => finish('timeout'), ASK_TIMEOUT_MS);
    const stopped = () => finish('stopped');
    signal.addEventListener('abort', stopped, { once: true });
    // The approval window's answer comes here instead of going to the host (approval_window.js answerApproval).
    approvals.get(token).settle = (allow) => {
      finish(allow ? 'allow' : 'denied');
      return { ok: true, found: true };
    };
    askPerson(token, origin, chatTabId, capability).catch(() => finish('denied'));
  });
}

// ---- running a tool ---------------------------------------------------------

/** Waits until the tab has loaded (at most LOAD_WAIT_MS); a Stop ends the wait. */
async function loaded(tabId, signal, minMs = 250) {
  await actionSleep(minMs, signal);
  for (let waited = 0; waited < LOAD_WAIT_MS; waited += 100) {
    const t = await chrome.tabs.get(tabId).catch(() => null);
    if (!t || t.status === 'complete') return t;
    await actionSleep(100, signal);
  }
  return chrome.tabs.get(tabId).catch(() => null);
}

const text = (t) => ({ content: [{ type: 'text', text: t }] });

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
  await loaded(c.tabId, c.signal, 0);
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
  return text(`${r.text}${note}. Take browser.screenshot or browser.read to see the tab now.`);
}

const pointer = (name) => async (c) => withDebugger(c, async (send) => {
  const { point, note } = await pointOf(c, c.args, send);
  return act(c, send, { name, args: { point } }, note);
});

const RUN = {
  async list_tabs(c) {
    const lines = [];
    const tabs = [];
    for (const id of await sharedTabs(c.origin)) {
      const tab = await chrome.tabs.get(id).catch(() => null);
      if (!tab) continue;
      const v = callVerdict({ tabId: id, tab, origin: c.origin, chatTabId: c.chatTabId, shared: true });
      tabs.push({ tabId: id, title: oneLine(tab.title, 200), url: tab.pendingUrl || tab.url || '', usable: v.ok });
      lines.push(`- ${tabLine(tab)}${v.ok ? '' : ` (cannot be used now: ${v.message})`}`);
    }
    const head = tabs.length
      ? `${tabs.length} tab${tabs.length === 1 ? ' is' : 's are'} shared with this chat:`
      : `No tab is shared with this chat. Ask the user to share one: "Share with ${c.origin}" in Gnosis's side panel, or in the menu of Gnosis's toolbar button on that tab.`;
    return { ...text([head, ...lines].join('\n')), structuredContent: { tabs } };
  },
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
    return text(r.text);
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
  async navigate(c) {
    await chrome.tabs.update(c.tabId, { url: c.args.url });
    const tab = await loaded(c.tabId, c.signal);
    return text(tab ? `${tabLine(tab)} now. Take browser.screenshot or browser.read to see it.` : `tab ${c.tabId} closed while it loaded ${c.args.url}`);
  },
  async open_tab(c) {
    const chat = await chrome.tabs.get(c.chatTabId).catch(() => null);
    const created = await chrome.tabs.create({ url: c.args.url, active: false, ...(chat ? { windowId: chat.windowId, index: chat.index + 1 } : {}) });
    const shared = await shareTab(created.id, c.origin, { address: c.args.url });
    if (!shared.ok) {
      await chrome.tabs.remove(created.id).catch(() => {});
      throw new Refused(`the new tab could not be shared with this chat, so it was closed again: ${shared.error}`);
    }
    const tab = await loaded(created.id, c.signal);
    return { ...text(`Opened ${tabLine(tab || created)}, shared with this chat. Use tabId ${created.id}.`), structuredContent: { tabId: created.id } };
  },
  async close_tab(c) {
    const tab = await chrome.tabs.get(c.tabId);
    await chrome.tabs.remove(c.tabId);
    return text(`Closed ${tabLine(tab)}.`);
  },
  async wait(c) {
    await actionSleep(Math.round(c.args.seconds * 1000), c.signal);
    return text(`Waited ${c.args.seconds} s.`);
  },
};

/** An address a call would open: refused when no tab showing it could be shared with the site. */
function addressVerdict(url, origin) {
  return shareVerdict({ url }, origin);
}

/**
 * Runs one browser.* call of a chat site, judged and answered as the host
 * answers its own.
 * @param {string} origin the chat site
 * @param {number} chatTabId the tab the call came from
 * @param {{capability: string, arguments?: object}} call
 * @param {{signal: AbortSignal, timedOut?: () => boolean, extendLimit?: (ms: number) => void}} o
 *   signal: the site's Stop (and the call's time limit); extendLimit: the time the person may take to answer
 * @returns {Promise<object>} the reply, never a rejection
 */
export async function runBrowserCall(origin, chatTabId, call, { signal, timedOut = () => false, extendLimit } = {}) {
  const name = call.capability;
  const args = call.arguments ?? {};
  const fail = (code, message, details) => failure(name, code, message, details);
  const cap = catalogue().get(name);
  const tool = browserTool(name);
  if (!cap || !tool) return fail(CODES.CAPABILITY_NOT_FOUND, `${name} is not a browser tool; they are ${BROWSER_NAMES.join(', ')}`);
  if (origin === chrome.runtime.getURL('').replace(/\/$/, '')) {
    return fail(CODES.FORBIDDEN, 'browser tools serve chat sites; the side panel\'s agent drives its tab itself', { reason: 'not-a-chat-site' });
  }
  if (cap.unavailable) return fail(CODES.EXECUTION_ERROR, `${name} cannot run here: ${cap.unavailable}`, { reason: 'unavailable' });
  const decision = await browserDecision(origin, name);
  if (decision === 'deny') {
    return fail(CODES.FORBIDDEN, `${origin} may not run ${name}: the user has not allowed it in "What this site may run" (Browser)`, { reason: 'not-granted' });
  }
  const violations = validate(compiled.get(name), args);
  if (violations.length) return fail(CODES.INVALID_ARGUMENTS, invalidArgumentsMessage(name, violations), { errors: violations });
  let tab = null;
  if (args.tabId !== undefined) {
    tab = await chrome.tabs.get(args.tabId).catch(() => null);
    const v = callVerdict({ tabId: args.tabId, tab, origin, chatTabId, shared: await isShared(args.tabId, origin) });
    if (!v.ok) return fail(CODES.FORBIDDEN, v.message, { reason: v.reason });
  }
  if (args.url !== undefined) {
    const v = addressVerdict(args.url, origin);
    if (!v.ok) return fail(CODES.FORBIDDEN, `${name} may not open ${oneLine(args.url, 200)}: ${v.message.replace(/^This tab /, 'it ')}`, { reason: v.reason });
  }
  const abort = new AbortController();
  const link = () => abort.abort();
  if (signal?.aborted) abort.abort();
  signal?.addEventListener('abort', link, { once: true });
  const me = { tabId: args.tabId, origin, abort, unshared: false };
  running.add(me);
  let token = null;
  try {
    if (decision === 'ask') {
      const subject = tab ? tabLine(tab) : args.url ? `a new tab: ${oneLine(args.url, 300)}` : '';
      const answer = await ask({ origin, chatTabId, capability: name, args, cap, subject, signal: abort.signal, extendLimit });
      token = answer.token;
      if (answer.verdict === 'denied') return fail(CODES.FORBIDDEN, `the user said no to ${name}`, { reason: 'denied' });
      if (answer.verdict === 'timeout') return fail(CODES.FORBIDDEN, `nobody answered the question about ${name} within ${ASK_TIMEOUT_MS / 1000} s`, { reason: 'timeout' });
      if (answer.verdict !== 'allow') throw Object.assign(new Error('stopped'), { code: 'stopped' });
    }
    const result = await RUN[tool.tool]({ origin, chatTabId, tabId: args.tabId, args, signal: abort.signal });
    return { ok: true, capability: name, result };
  } catch (err) {
    if (abort.signal.aborted || err?.code === 'stopped') {
      if (me.unshared) return fail(CODES.FORBIDDEN, `tab ${args.tabId} was unshared while ${name} ran; it was stopped there`, { reason: 'not-shared' });
      if (timedOut()) return fail(CODES.TIMEOUT, `${name} took too long and was stopped`);
      return fail(CODES.CANCELLED, `${name} was stopped (the user stopped the site)`);
    }
    return fail(CODES.EXECUTION_ERROR, `${name} failed: ${err instanceof Refused ? err.message : String(err?.message || err)}`);
  } finally {
    running.delete(me);
    signal?.removeEventListener('abort', link);
    if (token) closeApproval(approvals.forget(token));
  }
}
