// The chat bridge in the service worker: arming per origin, the gate, dedup
// and safety, execution through the shared host connection, badges, the
// options page's requests (settings, presets, the origin's grants, host status
// and install, pick, live selector check, capability prompt), and the approval
// window for calls the host asks the person about. Logic lives in the pure
// modules; this file is the chrome.* glue around them. Handlers follow
// router.js's shape; everything that reads or changes grants, or answers an
// approval, is accepted only from the extension's own pages.
import { host } from '../shared/host.js';
import { TransportCode, makeTransportError } from '../shared/native_client.js';
import { parseToolCall } from './parser.js';
import { eligibleOrigin, originOfKey, permissionPattern, siteKey, toCss } from './selector.js';
import { features } from '../shared/browser.js';
import { buildCapabilityPrompt } from './capability_prompt.js';
import { admitCall, admitMessage, freshSafety, humanMessage } from './guard.js';
import { PRESET_MISMATCH, detectSelectors, matchPreset, presetById } from './presets.js';
import { formatReply, transportReply } from './result_format.js';
import { badgeFor, progressBadge } from './badge.js';
import { defaultSettings, normalizeSettings } from './settings.js';
import { hostBinaryFor, installAdvice } from './platform.js';
import { checkGrants, providerCapabilities } from './grants.js';
import { APPROVAL_BADGE, APPROVAL_WINDOW, PendingApprovals } from './approval.js';


/** The host permission pattern of an origin in this browser. */
const sitePattern = (origin) => permissionPattern(origin, { portless: features().firefox });

/** How long one execute may take before the worker gives up (the host has its own per-provider timeout). */
const EXECUTE_TIMEOUT_MS = 150_000;

const session = chrome.storage.session;
const local = chrome.storage.local;
const inflight = new Map(); // origin -> Set<AbortController>
const approvals = new PendingApprovals();

async function getSession(key, dflt) {
  const got = await session.get(key);
  return got[key] ?? dflt;
}

async function armedOrigins() {
  return getSession('armed', {});
}

async function isArmed(origin) {
  return !!(await armedOrigins())[origin];
}

async function loadSettings(origin) {
  const got = await local.get(siteKey(origin));
  return { ...defaultSettings(), ...(got[siteKey(origin)] || {}) };
}

async function setLastEvent(origin, event) {
  await session.set({ [`last:${origin}`]: { ...event, at: Date.now() } });
}

function requireOrigin(origin) {
  const o = eligibleOrigin(origin);
  if (!o || o !== origin) throw new Error('not eligible: only http(s) pages can be armed');
  return o;
}

function senderOrigin(sender) {
  return eligibleOrigin(sender.url || sender.tab?.url || '');
}

async function tabsOf(origin) {
  const tabs = await chrome.tabs.query({});
  return tabs.filter((t) => eligibleOrigin(t.url || '') === origin);
}

async function setBadge(tabId, state, detail) {
  await showBadge(tabId, badgeFor(state, detail));
}

async function showBadge(tabId, b) {
  try {
    await chrome.action.setBadgeText({ tabId, text: b.text });
    if (b.text) await chrome.action.setBadgeBackgroundColor({ tabId, color: b.color });
    await chrome.action.setTitle({ tabId, title: b.title });
  } catch {
    // the tab went away
  }
}

/** Contentful selectors for the content script (user input → CSS). */
function contentConfig(settings) {
  return {
    source: toCss(settings.source), destination: toCss(settings.destination),
    sendButton: toCss(settings.sendButton), streaming: toCss(settings.streaming) || '', autoSend: !!settings.autoSend,
    debounceMs: settings.debounceMs, preset: presetById(settings.preset)?.id || '', presetMismatch: PRESET_MISMATCH,
  };
}

async function ensureContent(tabId) {
  await chrome.scripting.executeScript({ target: { tabId }, files: ['bridge/content.js'] });
}

async function configureTab(tabId, origin, baseline) {
  const settings = await loadSettings(origin);
  await ensureContent(tabId);
  await chrome.tabs.sendMessage(tabId, { type: 'bridge.configure', config: contentConfig(settings), baseline });
  await setBadge(tabId, 'armed');
}

async function prefixes() {
  let health = host.status().health;
  if (!health) {
    try {
      health = await host.health({ timeoutMs: 5000 });
    } catch {
      health = null;
    }
  }
  const list = (health?.providers || []).map((p) => p.prefix).filter((p) => typeof p === 'string' && p);
  return list.length ? [...new Set(list)] : ['computer'];
}

/** Host reply → the page's error text. */
function hostError(reply) {
  return `${reply.code}: ${reply.message}`;
}

/** What the options page shows about an origin's grants: every provider capability and the host's decisions. */
async function readGrants(origin) {
  requireOrigin(origin);
  const [list, policy] = await Promise.all([
    host.request('capabilities.list', undefined, { timeoutMs: 10_000 }),
    host.request('policy.get', { origin }, { timeoutMs: 10_000 }),
  ]);
  if (!list.ok) return { ok: false, error: hostError(list) };
  if (!policy.ok) return { ok: false, error: hostError(policy) };
  return {
    ok: true, origin, configured: !!policy.configured, decisions: policy.decisions || {},
    capabilities: providerCapabilities(list.capabilities),
  };
}

/**
 * Sets the origin's grants in the host's configuration. Capabilities the page
 * did not show (a provider that listed its tools after the page loaded) keep
 * what the host decides for them now, so saving never changes what was not
 * on screen; when nothing differs, nothing is written. Only ever called for
 * the extension's own pages.
 */
async function writeGrants(origin, grants) {
  requireOrigin(origin);
  const shown = checkGrants(grants);
  const now = await host.request('policy.get', { origin }, { timeoutMs: 10_000 });
  if (!now.ok) return { ok: false, error: hostError(now) };
  const merged = now.configured ? { ...now.decisions, ...shown } : shown;
  // Nothing to change: no write, so grants the host holds for capabilities not
  // registered right now (a provider still starting) are not dropped.
  if (now.configured && Object.entries(merged).every(([name, d]) => now.decisions[name] === d)) {
    return { ok: true, origin, configured: true, decisions: now.decisions };
  }
  const reply = await host.request('policy.set', { origin, grants: merged }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: hostError(reply) };
  return { ok: true, origin, configured: !!reply.configured, decisions: reply.decisions || {} };
}

async function start(origin, grants, tabId) {
  requireOrigin(origin);
  const settings = await loadSettings(origin);
  const { errors } = normalizeSettings(settings, { requireSelectors: true });
  if (Object.keys(errors).length) return { ok: false, errors };
  if (!(await chrome.permissions.contains({ origins: [sitePattern(origin)] }))) {
    return { ok: false, error: `no access to ${origin}: allow it when Start asks` };
  }
  if (grants !== undefined) {
    const saved = await writeGrants(origin, grants);
    if (!saved.ok) return { ok: false, error: `could not save what this site may run: ${saved.error}` };
  }
  const armed = await armedOrigins();
  armed[origin] = true;
  await session.set({ armed, [`safety:${origin}`]: freshSafety() });
  await setLastEvent(origin, { kind: 'armed' });
  const failures = [];
  const tabs = await tabsOf(origin);
  for (const tab of tabs) {
    try {
      await configureTab(tab.id, origin, true);
    } catch (err) {
      failures.push(`tab ${tab.id}: ${err.message}`);
    }
  }
  if (!settings.promptOnStart) return { ok: true, armed: true, failures };
  // The capability prompt goes into the tab the person started from (else the
  // origin's most recently used one), after the grants it describes were saved.
  const target = tabs.find((t) => t.id === tabId) || [...tabs].sort((a, b) => (b.lastAccessed || 0) - (a.lastAccessed || 0))[0];
  const prompted = target ? await insertPrompt(target.id, origin) : { ok: false, error: 'no tab shows this page' };
  return { ok: true, armed: true, failures, prompted: !!prompted.ok, ...(prompted.ok ? {} : { promptError: prompted.error }) };
}

/** Writes the capability prompt for origin into the tab's chat input (it is not sent). */
async function insertPrompt(tabId, origin) {
  const prompt = await capabilityPrompt(origin);
  if (!prompt.ok) return prompt;
  const settings = await loadSettings(origin);
  await ensureContent(tabId);
  return chrome.tabs.sendMessage(tabId, { type: 'bridge.insert', text: prompt.text, destination: toCss(settings.destination) });
}

async function stop(origin, reason) {
  const armed = await armedOrigins();
  delete armed[origin];
  // Disarmed and why, in one write: the options page never sees "Stopped" without its reason.
  const last = { ...(reason ? { kind: 'stopped', error: reason } : { kind: 'stopped' }), at: Date.now() };
  await session.set({ armed, [`last:${origin}`]: last });
  for (const ac of inflight.get(origin) || []) ac.abort();
  inflight.delete(origin);
  for (const tab of await tabsOf(origin)) {
    chrome.tabs.sendMessage(tab.id, { type: 'bridge.disarm' }).catch(() => {});
    await setBadge(tab.id, reason ? 'error' : 'off', reason);
  }
  return { ok: true, armed: false };
}

const chains = new Map(); // origin -> the tail of its promise chain

/** Runs fn after every earlier fn of the same origin has finished. */
function serially(origin, fn) {
  const run = (chains.get(origin) || Promise.resolve()).then(fn);
  const tail = run.catch(() => {});
  chains.set(origin, tail);
  tail.then(() => {
    if (chains.get(origin) === tail) chains.delete(origin);
  });
  return run;
}

/** One extracted message: gate → dedup → safety → execute → the text to inject. */
const acks = new Map(); // origin -> how many extracted messages were judged

/**
 * Records that the bridge judged one extracted message of the sender's
 * origin, whatever the verdict: storage.session "ack:<origin>" holds the
 * count, the message's index in the page and the verdict, so the tests know
 * a message was seen and answered, not merely that nothing happened yet.
 */
async function acknowledged(message, sender, verdict) {
  let v;
  try {
    v = await verdict;
    return v;
  } finally {
    const origin = senderOrigin(sender);
    if (origin) {
      const count = (acks.get(origin) || 0) + 1;
      acks.set(origin, count);
      const index = Number.isInteger(message?.index) ? message.index : -1;
      await session.set({ [`ack:${origin}`]: { count, index, action: v?.action || 'error', reason: v?.reason || '' } }).catch(() => {});
    }
  }
}

async function extracted(message, sender) {
  const origin = senderOrigin(sender);
  if (!origin || !(await isArmed(origin))) return { action: 'none', reason: 'not armed' };
  const text = typeof message.text === 'string' ? message.text : '';
  const index = Number.isInteger(message.index) ? message.index : 0;
  const conversation = typeof message.conversation === 'string' ? message.conversation.slice(0, 2048) : '/';
  const id = typeof message.id === 'string' ? message.id.slice(0, 100) : '';
  const page = typeof message.page === 'string' ? `${sender.tab?.id}/${message.page.slice(0, 100)}` : '';
  if (!id || !page) return { action: 'none', reason: 'no message id' };
  const gate = parseToolCall(text, { prefixes: await prefixes() });
  if (!gate.ok) return { action: 'none', reason: gate.reason };

  const settings = await loadSettings(origin);
  // Check-and-record under a per-origin lock: two tabs showing the same
  // conversation must not both run its newest call.
  const verdict = await serially(origin, async () => {
    const seen = admitMessage(await getSession(`seen:${origin}`, []), { conversation, index, text, id, page, streamed: message.streamed === true });
    if (!seen.fresh) return { action: 'none', reason: seen.reason };
    await session.set({ [`seen:${origin}`]: seen.seen });
    if (message.baseline) return { action: 'none', reason: 'baseline' };
    const admitted = admitCall(await getSession(`safety:${origin}`, freshSafety()), gate.call, { maxConsecutive: settings.maxConsecutive }, conversation);
    if (!admitted.allowed) return { action: 'stopped', code: admitted.code, reason: admitted.reason };
    await session.set({ [`safety:${origin}`]: admitted.state });
    return null;
  });
  if (verdict?.action === 'stopped') {
    await stop(origin, verdict.reason);
    return { ...verdict, reason: `Gnosis ${verdict.reason}. Start again from the options page.` };
  }
  if (verdict) return verdict;

  const tabId = sender.tab.id;
  await setBadge(tabId, 'running', gate.call.capability);
  const reply = await execute(origin, tabId, gate.call);
  if (!(await isArmed(origin))) return { action: 'none', reason: 'stopped while running' };
  await setLastEvent(origin, { kind: 'executed', capability: gate.call.capability, ok: !!reply.ok, code: reply.code });
  await setBadge(tabId, reply.ok ? 'armed' : 'error', reply.ok ? undefined : reply.code);
  return { action: 'inject', text: formatReply(reply, { maxChars: settings.maxChars }), autoSend: settings.autoSend };
}

/**
 * Runs one call through the host. When the host asks the person first (an
 * "approval" event), the approval window opens and the time the person takes
 * is added to the call's own time limit; the window closes and the pending
 * approval is forgotten when the call ends, however it ends.
 */
async function execute(origin, tabId, call) {
  const ac = new AbortController();
  let timedOut = false;
  let timer = 0;
  const limit = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, ms);
  };
  limit(EXECUTE_TIMEOUT_MS);
  const tokens = [];
  const onEvent = (event) => {
    if (event.event === 'progress') {
      showProgress(origin, tabId, call.capability, event);
      return;
    }
    if (event.event !== 'approval') return;
    const token = approvals.add(event, { tabId });
    tokens.push(token);
    limit(approvals.get(token).timeoutMs + EXECUTE_TIMEOUT_MS);
    askPerson(token, origin, tabId, call.capability);
  };
  if (!inflight.has(origin)) inflight.set(origin, new Set());
  inflight.get(origin).add(ac);
  try {
    return await host.request('execute', { capability: call.capability, arguments: call.arguments, origin },
      { timeoutMs: 0, signal: ac.signal, onEvent });
  } catch (err) {
    const cause = timedOut ? makeTransportError(TransportCode.TIMEOUT, `execute timed out after ${EXECUTE_TIMEOUT_MS} ms`) : err;
    return transportReply(cause, call.capability);
  } finally {
    clearTimeout(timer);
    inflight.get(origin)?.delete(ac);
    for (const token of tokens) closeApproval(approvals.forget(token));
  }
}

/** Shows a call's progress report on the tab's badge and in the options page's Last line. */
async function showProgress(origin, tabId, capability, event) {
  const p = { progress: event.progress, total: event.total, message: event.message };
  await showBadge(tabId, progressBadge(capability, p));
  await setLastEvent(origin, { kind: 'progress', capability, ...p });
}

/** Opens the approval window for a pending approval and shows that the bridge waits for the person. */
async function askPerson(token, origin, tabId, capability) {
  await showBadge(tabId, { ...APPROVAL_BADGE, title: `${APPROVAL_BADGE.title}: ${capability}` });
  await setLastEvent(origin, { kind: 'approval', capability });
  let win;
  try {
    win = await chrome.windows.create({
      type: 'popup', url: chrome.runtime.getURL(`bridge/approve.html?token=${token}`), focused: true,
      width: APPROVAL_WINDOW.width, height: APPROVAL_WINDOW.height, ...(await besideTab(tabId)),
    });
  } catch {
    // No window, no way to ask: the call is denied rather than left waiting.
    answerApproval(token, false);
    return;
  }
  if (approvals.get(token)) approvals.setWindow(token, win.id);
  else chrome.windows.remove(win.id).catch(() => {}); // the call ended while the window opened
}

/** Where the approval window goes: centred over the chat's window, cascaded when several wait. */
async function besideTab(tabId) {
  try {
    const parent = await chrome.windows.get((await chrome.tabs.get(tabId)).windowId);
    const step = 28 * (approvals.size - 1);
    return {
      left: Math.max(0, Math.round(parent.left + (parent.width - APPROVAL_WINDOW.width) / 2) + step),
      top: Math.max(0, Math.round(parent.top + (parent.height - APPROVAL_WINDOW.height) / 3) + step),
    };
  } catch {
    return {};
  }
}

/** Records the person's answer and hands it to the host. */
async function answerApproval(token, allow) {
  const entry = approvals.answer(token, allow);
  if (!entry) return { ok: false, error: 'this call is no longer waiting for an answer' };
  const reply = await host.request('approve', { id: entry.executeId, allow: entry.answer === 'allow' }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: hostError(reply) };
  return { ok: true, found: !!reply.found, answer: entry.answer };
}

function closeApproval(entry) {
  if (entry?.windowId != null) chrome.windows.remove(entry.windowId).catch(() => {});
}

async function hostStatus(refresh) {
  let health = null;
  let error = null;
  try {
    health = refresh ? await host.health({ timeoutMs: 5000 }) : host.status().health || null;
  } catch (err) {
    error = { code: err.code, message: err.message, advice: err.advice };
  }
  const status = host.status();
  return { ok: true, status, health, error: error || status.error || null };
}

/** Which bundled binary fits this machine, and whether this copy of the extension carries it. */
async function installTarget() {
  const info = await chrome.runtime.getPlatformInfo();
  const bin = hostBinaryFor(info);
  if (!bin) return { ok: false, error: `no bundled host for ${info.os}/${info.arch}` };
  const present = await fetch(chrome.runtime.getURL(bin.path), { method: 'HEAD' }).then((r) => r.ok, () => false);
  if (!present) return { ok: false, error: `this copy of the extension has no ${bin.path} (build it with make dist)`, file: bin.file };
  return { ok: true, path: bin.path, file: bin.file, advice: installAdvice(bin.goos, bin.file) };
}

/**
 * The capability prompt. With an origin it lists only what that origin may
 * run (the host's decisions: allow and ask, ask marked; deny left out).
 */
async function capabilityPrompt(origin) {
  let decisions;
  if (origin) {
    requireOrigin(origin);
    const policy = await host.request('policy.get', { origin }, { timeoutMs: 10_000 });
    if (!policy.ok) return { ok: false, error: hostError(policy) };
    decisions = policy.decisions || {};
  }
  const list = await host.request('capabilities.list', undefined, { timeoutMs: 10_000 });
  if (!list.ok) return { ok: false, error: hostError(list) };
  const wanted = list.capabilities.filter((c) => !decisions || c.name.startsWith('capabilities.') || ['allow', 'ask'].includes(decisions[c.name]));
  const described = await Promise.all(wanted.map(async (c) => {
    const d = await host.request('capabilities.describe', { name: c.name }, { timeoutMs: 10_000 });
    return d.ok ? { ...c, description: d.description ?? c.description, inputSchema: d.inputSchema } : c;
  }));
  const text = buildCapabilityPrompt(described, { prefixes: await prefixes(), decisions });
  return { ok: true, text, count: described.length };
}

/** Which preset fits the page in the tab: by its origin, else by its structure. */
async function detectPreset(tabId, origin) {
  const selectors = detectSelectors();
  let counts = {};
  if (await chrome.permissions.contains({ origins: [sitePattern(origin)] })) {
    await ensureContent(tabId);
    const reply = await chrome.tabs.sendMessage(tabId, { type: 'bridge.check', selectors: Object.fromEntries(selectors.map((css, i) => [`d${i}`, css])) });
    counts = reply?.results || {};
  }
  const found = matchPreset(origin, (css) => (counts[`d${selectors.indexOf(css)}`]?.count || 0) > 0);
  return found ? { ok: true, preset: found.preset, by: found.by } : { ok: true, preset: null };
}

async function tabForOrigin(tabId, origin) {
  const tab = await chrome.tabs.get(tabId);
  if (eligibleOrigin(tab.url || '') !== origin) throw new Error('that tab is not on this origin any more');
  return tab;
}

/** Message handlers, merged into background.js's single map. */
export const handlers = {
  'bridge.getSite': {
    from: 'extension',
    async run({ origin }) {
      requireOrigin(origin);
      return {
        ok: true, origin, settings: await loadSettings(origin), armed: await isArmed(origin),
        last: await getSession(`last:${origin}`, null),
      };
    },
  },
  'bridge.saveSite': {
    from: 'extension',
    async run({ origin, settings }) {
      requireOrigin(origin);
      const n = normalizeSettings(settings);
      if (Object.keys(n.errors).length) return { ok: false, errors: n.errors };
      await local.set({ [siteKey(origin)]: n.settings });
      if (await isArmed(origin)) {
        for (const tab of await tabsOf(origin)) configureTab(tab.id, origin, false).catch(() => {});
      }
      return { ok: true, settings: n.settings };
    },
  },
  'bridge.listSites': {
    from: 'extension',
    async run() {
      const all = await local.get(null);
      return { ok: true, origins: Object.keys(all).map(originOfKey).filter(Boolean).sort() };
    },
  },
  'bridge.start': { from: 'extension', run: ({ origin, grants, tabId }) => start(origin, grants, tabId) },
  'bridge.getGrants': { from: 'extension', run: ({ origin }) => readGrants(origin) },
  'bridge.setGrants': { from: 'extension', run: ({ origin, grants }) => writeGrants(origin, grants) },
  'bridge.approval': {
    from: 'extension',
    run({ token }) {
      const view = approvals.view(token);
      return view ? { ok: true, ...view } : { ok: false, error: 'this call is no longer waiting for an answer' };
    },
  },
  'bridge.approve': {
    from: 'extension',
    run({ token, allow }, sender) {
      const entry = approvals.get(token);
      // Only the window opened for this approval answers it.
      if (!entry || entry.windowId == null || sender.tab?.windowId !== entry.windowId) {
        return { ok: false, error: 'this call is no longer waiting for an answer' };
      }
      return answerApproval(token, allow === true);
    },
  },
  'bridge.stop': { from: 'extension', run: ({ origin }) => stop(requireOrigin(origin)) },
  'bridge.hostStatus': { from: 'extension', run: ({ refresh }) => hostStatus(!!refresh) },
  'bridge.installTarget': { from: 'extension', run: () => installTarget() },
  'bridge.capabilityPrompt': { from: 'extension', run: ({ origin }) => capabilityPrompt(origin || undefined) },
  'bridge.insertPrompt': {
    from: 'extension',
    async run({ tabId, origin }) {
      await tabForOrigin(tabId, origin);
      return insertPrompt(tabId, origin);
    },
  },
  'bridge.detectPreset': {
    from: 'extension',
    async run({ tabId, origin }) {
      requireOrigin(origin);
      if (tabId == null) return { ok: true, ...matchPresetByOrigin(origin) };
      await tabForOrigin(tabId, origin);
      return detectPreset(tabId, origin);
    },
  },
  'bridge.pick': {
    from: 'extension',
    async run({ tabId, origin, field }, sender) {
      await tabForOrigin(tabId, origin);
      await ensureContent(tabId);
      await chrome.tabs.update(tabId, { active: true });
      const result = await chrome.tabs.sendMessage(tabId, { type: 'bridge.pick', field });
      if (sender.tab?.id) chrome.tabs.update(sender.tab.id, { active: true }).catch(() => {});
      return result;
    },
  },
  'bridge.check': {
    from: 'extension',
    async run({ tabId, origin, selectors }) {
      await tabForOrigin(tabId, origin);
      if (!(await chrome.permissions.contains({ origins: [sitePattern(origin)] }))) return { ok: false, error: 'no access to the page yet' };
      await ensureContent(tabId);
      const css = {};
      for (const [k, v] of Object.entries(selectors || {})) css[k] = toCss(v);
      const reply = await chrome.tabs.sendMessage(tabId, { type: 'bridge.check', selectors: css });
      return { ...reply, css };
    },
  },
  'bridge.extracted': { from: 'content', run: (message, sender) => acknowledged(message, sender, extracted(message, sender)) },
  'bridge.report': {
    from: 'content',
    async run({ ok, stage, error }, sender) {
      const origin = senderOrigin(sender);
      if (!origin) return { ok: false };
      await setLastEvent(origin, { kind: ok ? 'delivered' : 'failed', stage, error });
      if (await isArmed(origin)) await setBadge(sender.tab.id, ok ? 'armed' : 'error', error);
      return { ok: true };
    },
  },
  'bridge.human': {
    from: 'content',
    async run(_message, sender) {
      const origin = senderOrigin(sender);
      if (origin && (await isArmed(origin))) await session.set({ [`safety:${origin}`]: humanMessage() });
      return { ok: true };
    },
  },
};

function matchPresetByOrigin(origin) {
  const found = matchPreset(origin, () => false);
  return found ? { preset: found.preset, by: found.by } : { preset: null };
}

/** Registers the bridge's listeners: re-arms tabs of armed origins after navigation and reload. */
export function init() {
  // Keep the cached health (prefixes for the gate, the options page's status) current.
  const refresh = () => host.health({ timeoutMs: 5000 }).catch(() => {});
  host.on('capabilities.changed', refresh);
  host.on('provider.state', refresh);
  // Closing the approval window is a No.
  chrome.windows.onRemoved.addListener((windowId) => {
    const token = approvals.tokenOfWindow(windowId);
    if (token && approvals.get(token).answer === null) answerApproval(token, false).catch(() => {});
  });
  chrome.tabs.onUpdated.addListener(async (tabId, change, tab) => {
    if (change.status !== 'complete') return;
    const origin = eligibleOrigin(tab.url || '');
    if (!origin || !(await isArmed(origin))) return;
    try {
      await configureTab(tabId, origin, false);
    } catch (err) {
      await setBadge(tabId, 'error', err.message);
    }
  });
}
