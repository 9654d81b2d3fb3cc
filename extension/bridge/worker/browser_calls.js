// Running one browser.* call of a chat site (call_runner.js hands them
// here; the host never sees them): judged like a host call, in the host's
// order — a tool of the catalogue (core/browser_tools.js) that this browser
// can run, granted to the site (browser_grants.js), arguments valid against
// its schema (core/schema_check.js), a tab the person shares with the site
// (core/tab_eligibility.js, browser_tabs.js), the person's answer when the
// site's grant says ask (the approval window, approval_window.js) — then
// run. The tools that need no debugger (listing, navigating, opening and
// closing shared tabs, waiting) run here, with chrome.tabs; those that see
// or act on the page run on the tab engine through chrome.debugger
// (browser_tab_tools.js), which only the Chromium background loads and hands
// over (useTabTools), so Firefox's package carries no debugger code. The
// reply has the host's shape ({ok, capability, result: MCP CallToolResult}
// or {ok: false, code, message, details}), so the activity log, the result
// text and the image attachment take it as they take the host's. Nothing
// the shared page says decides anything here: its text reaches the model
// as a result only.
import { BROWSER_NAMES, browserCapabilities, browserTool } from '../core/browser_tools.js';
import { compileSchema, invalidArgumentsMessage, validate } from '../core/schema_check.js';
import { callVerdict, shareVerdict } from '../core/tab_eligibility.js';
import { browserDecision } from './browser_grants.js';
import { isShared, onUnshare, shareTab, sharedTabs } from './browser_tabs.js';
import { approvals, askPerson, closeApproval } from './approval_window.js';
import { oneLine } from '../../shared/core/readable.js';
import { actionSleep } from '../../shared/core/cdp_input.js';
import { features } from '../../shared/browser.js';
import { CODES } from '../../shared/core/codes.js';

/** How long the person has to answer an "ask each time" question about a browser.* call (the host's default askTimeout). */
export const ASK_TIMEOUT_MS = 60_000;

/** The longest a navigation is waited for before the call answers anyway. */
export const LOAD_WAIT_MS = 10_000;

/** The capabilities as this browser offers them, by name. */
const catalogue = () => new Map(browserCapabilities({ debugger: features().debugger }).map((c) => [c.name, c]));

const compiled = new Map(browserCapabilities().map((c) => [c.name, compileSchema(c.inputSchema)]));

/** An error a tool's run raises for the model: EXECUTION_ERROR with these words. */
export class Refused extends Error {}

function failure(capability, code, message, details) {
  return { ok: false, error: true, code, capability, message, ...(details ? { details } : {}) };
}

/** A tab in a sentence: its id, title and address, with nothing hidden in them. */
export function tabLine(tab) {
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
export async function tabLoaded(tabId, signal, minMs = 250) {
  await actionSleep(minMs, signal);
  for (let waited = 0; waited < LOAD_WAIT_MS; waited += 100) {
    const t = await chrome.tabs.get(tabId).catch(() => null);
    if (!t || t.status === 'complete') return t;
    await actionSleep(100, signal);
  }
  return chrome.tabs.get(tabId).catch(() => null);
}

/** A tool's result of one text. */
export const toolText = (t) => ({ content: [{ type: 'text', text: t }] });

/** The tools that drive a tab through chrome.debugger (browser_tab_tools.js TAB_TOOLS), once handed over. */
let tabTools = Object.freeze({});

/**
 * Takes the tools that drive a tab through chrome.debugger. The Chromium
 * background calls it at its start; Firefox's never does, and there those
 * tools are unavailable (core/browser_tools.js NO_DEBUGGER) before they
 * would be looked up.
 * @param {Record<string, (c: object) => Promise<object>>} tools by tool name
 */
export function useTabTools(tools) {
  tabTools = tools;
}

/** The tools that need no debugger, by tool name; each takes the judged call {origin, chatTabId, tabId, args, signal}. */
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
    return { ...toolText([head, ...lines].join('\n')), structuredContent: { tabs } };
  },
  async navigate(c) {
    await chrome.tabs.update(c.tabId, { url: c.args.url });
    const tab = await tabLoaded(c.tabId, c.signal);
    return toolText(tab ? `${tabLine(tab)} now. Take browser.screenshot or browser.read to see it.` : `tab ${c.tabId} closed while it loaded ${c.args.url}`);
  },
  async open_tab(c) {
    const chat = await chrome.tabs.get(c.chatTabId).catch(() => null);
    const created = await chrome.tabs.create({ url: c.args.url, active: false, ...(chat ? { windowId: chat.windowId, index: chat.index + 1 } : {}) });
    const shared = await shareTab(created.id, c.origin, { address: c.args.url });
    if (!shared.ok) {
      await chrome.tabs.remove(created.id).catch(() => {});
      throw new Refused(`the new tab could not be shared with this chat, so it was closed again: ${shared.error}`);
    }
    const tab = await tabLoaded(created.id, c.signal);
    return { ...toolText(`Opened ${tabLine(tab || created)}, shared with this chat. Use tabId ${created.id}.`), structuredContent: { tabId: created.id } };
  },
  async close_tab(c) {
    const tab = await chrome.tabs.get(c.tabId);
    await chrome.tabs.remove(c.tabId);
    return toolText(`Closed ${tabLine(tab)}.`);
  },
  async wait(c) {
    await actionSleep(Math.round(c.args.seconds * 1000), c.signal);
    return toolText(`Waited ${c.args.seconds} s.`);
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
  const run = Object.hasOwn(RUN, tool.tool) ? RUN[tool.tool] : tabTools[tool.tool];
  if (!run) return fail(CODES.EXECUTION_ERROR, `${name} cannot run here: this background has not loaded the tools that drive a tab`, { reason: 'unavailable' });
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
    const result = await run({ origin, chatTabId, tabId: args.tabId, args, signal: abort.signal });
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
