// The agent's desktop half in the service worker: a task's desktop steps
// (screenshot, click, drag, type, keys, scroll, wait) as host calls of the
// desktop server's tools, mapped by the desktop profile in use
// (core/desktop_profiles.js, core/desktop_actions.js).
//
// Every call goes through the chat bridge's execute path, handed in by
// background.js (bridge/worker/agent_calls.js): the host judges it under the
// extension's own origin (the agent's grants), asks the person in the
// approval window when its grant is Ask, reports progress, and the activity
// log records it under the task. DESKTOP.STOP (the panel's Stop, Pause, or
// its port closing) cancels the call in flight through the host.
//
// The desktop offer (offered or not, and why) follows the host: it is asked
// again when the host says its providers or tools changed and when the
// person's profile is saved, and each change is pushed to every open Side
// Panel (agent_sessions.js toPanels) and to onDesktopChange's subscribers
// (the Page Assistant's bars).
//
// Handlers accept only this extension's pages.

import { host } from '../../shared/host.js';
import { CODES } from '../../shared/core/codes.js';
import { DESKTOP } from '../../shared/core/messages.js';
import { callsFor, chooseProfile, profileProblems, screenshotFrom, toolUses, toolsOf, whyNoDesktop } from '../core/desktop_profiles.js';
import { planDesktopAction } from '../core/desktop_actions.js';
import { kindOfCall, toolKinds } from '../core/desktop_call_kind.js';
import {
  DESKTOP_KINDS, SUGGESTED_KINDS, agreesWithHost, choicesAfterSave, hostDecisions, kindsFromHost, validKindGrants,
} from '../../shared/core/desktop_kinds.js';
import { desktopChoices, forgetDesktopChoices, keepDesktopChoices, kindGrantsOf, saveKindGrants } from '../../shared/desktop_decisions.js';
import { encodeScreenshot } from './desktop_image.js';
import { actionSleep, actionStopped } from '../core/cdp_input.js';
import { desktopPush } from '../core/panel_contract.js';
import { findSession, toPanels } from './agent_sessions.js';

/** Where Settings keeps the person's own desktop profile: {prefix, profile}. */
export const PROFILE_KEY = 'desktopProfile';

let runCall = null;
let agentOrigin = '';
/** sessionId -> {abort: AbortController|null, shot, choice}: choice is the desktop state a task started with */
const sessions = new Map();

function sessionOf(id) {
  const key = String(id);
  if (!sessions.has(key)) sessions.set(key, { abort: null, shot: null, choice: null });
  return sessions.get(key);
}

async function customProfile() {
  const saved = (await chrome.storage.local.get(PROFILE_KEY))[PROFILE_KEY];
  return saved && typeof saved === 'object' ? saved : null;
}

async function capabilities() {
  const list = await host.request('capabilities.list', undefined, { timeoutMs: 10_000 });
  if (!list.ok) throw new Error(`the host could not list its tools (${list.code}: ${list.message})`);
  return list.capabilities || [];
}

/** The desktop a task can act on now: {offered, prefix, profile, custom, why}. */
export async function desktopState() {
  let caps;
  try {
    caps = await capabilities();
  } catch (err) {
    return { offered: false, why: `The host could not be asked about it: ${err.message}.` };
  }
  const custom = await customProfile();
  const choice = chooseProfile(caps, custom);
  if (!choice) return { offered: false, why: whyNoDesktop(caps, custom) };
  return { offered: true, prefix: choice.prefix, profile: choice.profile, custom: choice.custom, capabilities: caps.map((c) => c.name).filter((n) => n.startsWith(`${choice.prefix}.`)) };
}

/** The offer as last asked: {offered, why, prefix}, or null before the first answer. */
let offer = null;
const offerListeners = new Set();
let rechecking = Promise.resolve();

/**
 * Asks the host about the desktop again (one at a time, in order) and tells
 * the subscribers when the offer changed. Resolves with the offer.
 */
function recheck() {
  rechecking = rechecking.catch(() => {}).then(async () => {
    const st = await desktopState();
    const next = { offered: Boolean(st.offered), why: st.offered ? '' : String(st.why || ''), prefix: st.prefix || '' };
    const changed = JSON.stringify(next) !== JSON.stringify(offer);
    offer = next;
    if (changed) {
      for (const fn of offerListeners) {
        try { fn(next); } catch { /* a subscriber must not stop the others */ }
      }
    }
    return next;
  });
  return rechecking;
}

/**
 * The desktop offer for a new listener (a bar that just loaded): the last
 * answer while the desktop is offered, else asked again (the host may have
 * come up since).
 * @returns {Promise<{offered:boolean, why:string, prefix:string}>}
 */
export async function desktopOffer() {
  return offer?.offered ? offer : recheck();
}

/**
 * Subscribes to changes of the desktop offer.
 * @param {(offer:{offered:boolean, why:string, prefix:string}) => void} fn
 * @returns {() => void} unsubscribe
 */
export function onDesktopChange(fn) {
  offerListeners.add(fn);
  return () => offerListeners.delete(fn);
}

async function mustChoice() {
  const st = await desktopState();
  if (!st.offered) throw new Error(st.why);
  return st;
}

/**
 * The desktop a session's task uses: asked of the host when the task moves
 * to the desktop (DESKTOP.STATE with its session), then kept for its steps,
 * so a step costs no capabilities.list.
 */
async function choiceOf(s) {
  s.choice ||= await mustChoice();
  return s.choice;
}

/**
 * What the approval window and the kind grants need to know of a call: its
 * kind (from its exact arguments, core/desktop_call_kind.js), the server,
 * the task (its key and words), the page the task's tab shows and the
 * browser window of its Side Panel (where the window opens).
 */
async function desktopContext(st, c, m) {
  const ses = m.sessionId !== undefined ? findSession(String(m.sessionId)) : null;
  const tab = ses?.tabId != null ? await chrome.tabs.get(ses.tabId).catch(() => null) : null;
  return {
    kind: kindOfCall(st.profile, st.prefix, c), prefix: st.prefix, task: typeof m.task === 'string' ? m.task : '',
    taskText: typeof m.taskText === 'string' ? m.taskText.slice(0, 500) : '', page: tab?.url || '', pageTitle: tab?.title || '',
    windowId: ses?.windowId ?? null,
  };
}

/** One host call of a task; a refusal, a server failure or a broken host ends the task with its words. */
async function call(s, c, m, st) {
  const signal = s.abort.signal;
  const reply = await runCall(c, { signal, task: m.task, desktop: await desktopContext(st, c, m) });
  if (signal.aborted) throw actionStopped();
  if (reply.ok) return reply.result;
  if (reply.code === CODES.FORBIDDEN) {
    throw new Error(`the host refused ${c.capability}: ${reply.message}. The agent's desktop grants are in the side panel's Settings → Desktop and on the options page's Agent view.`);
  }
  if (reply.code === CODES.CANCELLED) throw actionStopped();
  if (reply.code === CODES.INVALID_ARGUMENTS) {
    throw new Error(`the host refused the arguments of ${c.capability}: ${reply.message}. The desktop profile does not fit the tool: fix it in the side panel's Settings → Desktop → Profile.`);
  }
  const err = new Error(await serverFailure(c.capability, reply));
  err.code = reply.code;
  throw err;
}

/**
 * What a failed desktop call says: which server (its name and prefix, from
 * the host's health), what the host said, and the server's own last words
 * on stderr when the host kept them.
 */
async function serverFailure(capability, reply) {
  const prefix = capability.split('.')[0];
  const health = await host.health({ timeoutMs: 5000 }).catch(() => null);
  const p = (health?.providers || []).find((x) => x.prefix === prefix);
  const who = p?.name && p.name !== prefix ? `"${p.name}" (${prefix}.*)` : `"${prefix}"`;
  const stderr = String(p?.stderr || '').trim().split('\n').slice(-3).join(' | ').slice(0, 400);
  return `the desktop server ${who} failed on ${capability}: ${reply.code}: ${reply.message}${stderr ? `. Its last words on stderr: ${stderr}` : ''}. Check it on the setup page, then run the task again.`;
}

function toolErrorText(result) {
  return (result?.content || []).filter((p) => p?.type === 'text').map((p) => p.text).join(' ').replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** Runs fn with the session's AbortController in place, so DESKTOP.STOP cancels it. */
async function withAbort(s, fn) {
  s.abort?.abort();
  const ac = new AbortController();
  s.abort = ac;
  try {
    return await fn(ac.signal);
  } finally {
    if (s.abort === ac) s.abort = null;
  }
}

async function observe(m) {
  const s = sessionOf(m.sessionId);
  const st = await choiceOf(s);
  return withAbort(s, async () => {
    let result;
    for (const c of callsFor(st.profile, st.prefix, 'screenshot', {})) result = await call(s, c, m, st);
    const shot = screenshotFrom(result, `${st.prefix} screenshot`);
    if (!shot.ok) throw new Error(shot.error);
    const img = await encodeScreenshot(shot.base64, shot.mime);
    s.shot = { width: img.width, height: img.height, sentWidth: img.sentWidth, sentHeight: img.sentHeight };
    return {
      image: img.image, mime: img.mime, surface: 'desktop',
      viewport: { width: img.sentWidth, height: img.sentHeight },
      desktop: { width: img.width, height: img.height, server: st.prefix },
      url: '', title: `Desktop (${st.prefix})`, notes: [],
    };
  });
}

async function act(m) {
  const s = sessionOf(m.sessionId);
  const st = await choiceOf(s);
  const plan = planDesktopAction(m.action, { profile: st.profile, prefix: st.prefix, shot: s.shot, coordinateMode: m.coordinateMode === 'absolute' ? 'absolute' : 'normalized' });
  if (plan.error) return { text: plan.error, error: true };
  return withAbort(s, async (signal) => {
    for (const c of plan.calls) {
      const result = await call(s, c, m, st);
      if (result?.isError) return { text: `${c.capability} failed: ${toolErrorText(result) || 'the tool reported an error'}`, error: true };
    }
    if (plan.waitMs) await actionSleep(plan.waitMs, signal);
    return { text: plan.text };
  });
}

async function describeAll(names) {
  const out = {};
  await Promise.all(names.map(async (name) => {
    const r = await host.request('capabilities.describe', { name }, { timeoutMs: 10_000 }).catch(() => null);
    if (r?.ok && r.inputSchema) out[name] = typeof r.inputSchema === 'string' ? JSON.parse(r.inputSchema) : r.inputSchema;
  }));
  return out;
}

/** Checks a profile the person wrote against the host's tools and their schemas; saves it when it fits. */
async function checkProfile({ prefix, profile, save }) {
  if (profile === null && save) {
    await chrome.storage.local.remove(PROFILE_KEY);
    recheck().catch(() => {});
    return { ok: true, problems: [] };
  }
  if (typeof prefix !== 'string' || !prefix) return { ok: true, problems: ['name the server (its prefix) the profile is for'] };
  const caps = await capabilities();
  const schemas = await describeAll((toolsOf(profile || {}) || []).map((t) => `${prefix}.${t}`));
  const problems = profileProblems(profile, prefix, caps, schemas);
  if (!problems.length && save) await chrome.storage.local.set({ [PROFILE_KEY]: { prefix, profile } });
  if (save) recheck().catch(() => {});
  return { ok: true, problems };
}

/**
 * The agent's desktop grants by kind (looking, pointing, typing) for the
 * server in use, as they stand: the ones saved in Settings when the host
 * still decides what they say, else what the host's decisions amount to;
 * the suggestion; and every choice remembered from the approval window.
 */
async function getGrants() {
  const st = await desktopState();
  if (!st.offered) return { ok: true, offered: false, why: st.why, choices: await desktopChoices() };
  const policy = await host.request('policy.get', { origin: agentOrigin }, { timeoutMs: 10_000 });
  if (!policy.ok) return { ok: false, error: `${policy.code}: ${policy.message}` };
  const kinds = await kindsNow(st, policy);
  return {
    ok: true, offered: true, origin: agentOrigin, configured: Boolean(policy.configured), kinds, suggested: { ...SUGGESTED_KINDS },
    tools: toolsOf(st.profile).map((t) => `${st.prefix}.${t}`), toolKinds: toolKinds(st.profile, st.prefix), uses: toolUses(st.profile, st.prefix),
    decisions: policy.decisions || {}, choices: await desktopChoices(), server: st.prefix, profile: st.custom ? 'your own' : st.profile.name,
  };
}

/** The kind grants in force for the server of st, given the host's policy for the agent. */
async function kindsNow(st, policy) {
  const tk = toolKinds(st.profile, st.prefix);
  const decisions = policy.decisions || {};
  const saved = await kindGrantsOf(st.prefix);
  if (saved && policy.configured && agreesWithHost(saved, decisions, tk)) return saved;
  return policy.configured ? kindsFromHost(decisions, tk) : { look: 'deny', point: 'deny', type: 'deny' };
}

/**
 * Saves the kind grants: the host is told Ask for every tool a kind not
 * blocked uses (Block when all its kinds are), so each call is judged by its
 * own kind; the grants go to the trusted store; the remembered choices they
 * contradict are forgotten. Allowing typing needs typingConfirmed: the
 * person read what it means.
 */
async function setGrants({ kinds, typingConfirmed }) {
  if (!validKindGrants(kinds)) return { ok: false, error: `not a grant for each of ${DESKTOP_KINDS.join(', ')}: ${JSON.stringify(kinds)}` };
  const st = await mustChoice();
  const now = await host.request('policy.get', { origin: agentOrigin }, { timeoutMs: 10_000 });
  if (!now.ok) return { ok: false, error: `${now.code}: ${now.message}` };
  const before = await kindsNow(st, now);
  if (kinds.type === 'allow' && before.type !== 'allow' && typingConfirmed !== true) {
    return { ok: false, error: 'typing and keys without asking needs your confirmation: any page the agent reads could then make it type commands' };
  }
  const chosen = { look: kinds.look, point: kinds.point, type: kinds.type };
  // The agent's other decisions stay; Block is what every tool not named gets, so it is not written out per tool.
  const kept = now.configured ? Object.fromEntries(Object.entries(now.decisions || {}).filter(([, d]) => d !== 'deny')) : {};
  const reply = await host.request('policy.set', { origin: agentOrigin, grants: { ...kept, ...hostDecisions(chosen, toolKinds(st.profile, st.prefix)) } }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: `${reply.code}: ${reply.message}` };
  await saveKindGrants(st.prefix, chosen);
  await keepDesktopChoices((c) => c.prefix !== st.prefix || choicesAfterSave([c], before, chosen).length > 0);
  return { ok: true, decisions: reply.decisions || {}, kinds: chosen, choices: await desktopChoices() };
}

/** A task's typing choices end when it (re)enters the desktop and when it stops there. */
function endTypingOf(task) {
  if (typeof task !== 'string' || !task) return Promise.resolve();
  return keepDesktopChoices((c) => !(c.scope === 'task' && c.task === task)).catch(() => {});
}

/** Message handlers in shared/core/router.js's shape. */
export const handlers = {
  [DESKTOP.STATE]: {
    from: 'extension',
    async run(m) {
      const st = await desktopState();
      // A task's session keeps what it started with (observe, act); the panel's own questions carry no session.
      if (m.sessionId !== undefined) sessionOf(m.sessionId).choice = st.offered ? st : null;
      if (m.sessionId !== undefined) await endTypingOf(m.task);
      return { ok: true, ...st };
    },
  },
  [DESKTOP.OBSERVE]: { from: 'extension', run: async (m) => ({ ok: true, observation: await observe(m) }) },
  [DESKTOP.ACT]: { from: 'extension', run: async (m) => ({ ok: true, result: await act(m) }) },
  [DESKTOP.STOP]: {
    from: 'extension',
    run(m) {
      const s = sessions.get(String(m.sessionId));
      s?.abort?.abort();
      if (s && m.end) sessions.delete(String(m.sessionId));
      endTypingOf(m.task);
      return { ok: true };
    },
  },
  [DESKTOP.CHECK_PROFILE]: { from: 'extension', run: (m) => checkProfile(m) },
  [DESKTOP.GET_GRANTS]: { from: 'extension', run: () => getGrants() },
  [DESKTOP.SET_GRANTS]: { from: 'extension', run: (m) => setGrants(m) },
  [DESKTOP.FORGET_CHOICES]: {
    from: 'extension',
    async run({ ids }) {
      await forgetDesktopChoices(Array.isArray(ids) ? ids.map(String) : null);
      return { ok: true, choices: await desktopChoices() };
    },
  },
};

/**
 * Wires the desktop half: run is the bridge's execute path for the agent's
 * calls, origin the extension's own (what the host judges them under).
 * onSessionEnd: a panel closed, so its call in flight is cancelled. The
 * offer is asked again on each host event about providers or tools.
 */
export function initDesktop({ run, origin, onSessionEnd }) {
  runCall = run;
  agentOrigin = origin;
  const again = () => { recheck().catch(() => {}); };
  // Every open Side Panel hears that the offer changed, and asks for it.
  onDesktopChange(() => toPanels(desktopPush()));
  host.on('capabilities.changed', again);
  host.on('provider.state', again);
  onSessionEnd?.((sessionId) => {
    sessions.get(String(sessionId))?.abort?.abort();
    sessions.delete(String(sessionId));
  });
}
