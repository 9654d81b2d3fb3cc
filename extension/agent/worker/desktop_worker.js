// The agent's desktop half in the service worker: the desktop a task can
// act on (which server and profile, or why none), the person's own profile
// checked against the host's tools, the agent's desktop grants, and the
// handlers of a task's desktop requests (desktop_task.js runs them).
//
// The desktop offer (offered or not, and why) follows the host: it is asked
// again when the host says its providers or tools changed and when the
// person's profile is saved, and each change is pushed to every open Side
// Panel (agent_sessions.js toPanels) and to onDesktopChange's subscribers
// (the Page Assistant's bars).
//
// Requests are read and answered through agent/core/panel_contract.js;
// handlers accept only this extension's pages.

import { host } from '../../shared/host.js';
import { METHODS } from '../../shared/core/methods.js';
import { DESKTOP } from '../../shared/core/messages.js';
import { chooseProfile, profileProblems, toolUses, toolsOf, whyNoDesktop } from '../core/desktop_profiles.js';
import { toolKinds } from '../core/desktop_call_kind.js';
import {
  DESKTOP_KINDS, SUGGESTED_KINDS, agreesWithHost, choicesAfterSave, hostDecisions, kindsFromHost, validKindGrants,
} from '../../shared/core/desktop_kinds.js';
import { desktopChoices, forgetDesktopChoices, keepDesktopChoices, kindGrantsOf, saveKindGrants } from '../../shared/desktop_decisions.js';
import { desktopPush, readDesktop, readDesktopAct, readDesktopStop, readForget, readGrants, readProfileCheck, reply } from '../core/panel_contract.js';
import { findSession, mustSession, toPanels } from './agent_sessions.js';
import { DesktopError, actOnDesktop, observeDesktop, setDesktopRunner, stopDesktop } from './desktop_task.js';

/** Where Settings keeps the person's own desktop profile: {prefix, profile}. */
export const PROFILE_KEY = 'desktopProfile';

let agentOrigin = '';

async function customProfile() {
  const saved = (await chrome.storage.local.get(PROFILE_KEY))[PROFILE_KEY];
  return saved && typeof saved === 'object' ? saved : null;
}

async function capabilities() {
  const list = await host.request(METHODS.CAPABILITIES_LIST, undefined, { timeoutMs: 10_000 });
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
  s.desktop.choice ||= await mustChoice();
  return s.desktop.choice;
}

/** A task's request: its reply, or the refusal the panel tells apart by code. */
async function answer(fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DesktopError) return reply.failed(err.code, err.message);
    throw err;
  }
}

async function describeAll(names) {
  const out = {};
  await Promise.all(names.map(async (name) => {
    const r = await host.request(METHODS.CAPABILITIES_DESCRIBE, { name }, { timeoutMs: 10_000 }).catch(() => null);
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
  const policy = await host.request(METHODS.POLICY_GET, { origin: agentOrigin }, { timeoutMs: 10_000 });
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
  const now = await host.request(METHODS.POLICY_GET, { origin: agentOrigin }, { timeoutMs: 10_000 });
  if (!now.ok) return { ok: false, error: `${now.code}: ${now.message}` };
  const before = await kindsNow(st, now);
  if (kinds.type === 'allow' && before.type !== 'allow' && typingConfirmed !== true) {
    return { ok: false, error: 'typing and keys without asking needs your confirmation: any page the agent reads could then make it type commands' };
  }
  const chosen = { look: kinds.look, point: kinds.point, type: kinds.type };
  // The agent's other decisions stay; Block is what every tool not named gets, so it is not written out per tool.
  const kept = now.configured ? Object.fromEntries(Object.entries(now.decisions || {}).filter(([, d]) => d !== 'deny')) : {};
  const reply = await host.request(METHODS.POLICY_SET, { origin: agentOrigin, grants: { ...kept, ...hostDecisions(chosen, toolKinds(st.profile, st.prefix)) } }, { timeoutMs: 10_000 });
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

/**
 * What a task moving to the desktop needs to know of the agent's grants:
 * whether anything is saved, and if not the suggestion (by kind) to ask the
 * person with (the panel asks before the first call, core/desktop_surface.js).
 * null when the host could not say.
 */
async function taskGrants(st) {
  const policy = await host.request(METHODS.POLICY_GET, { origin: agentOrigin }, { timeoutMs: 10_000 }).catch(() => null);
  if (!policy?.ok) return null;
  if (policy.configured) return { configured: true };
  return { configured: false, suggested: { ...SUGGESTED_KINDS }, toolKinds: toolKinds(st.profile, st.prefix), server: st.prefix };
}

/** Message handlers in shared/core/router.js's shape. */
export const handlers = {
  [DESKTOP.STATE]: {
    from: 'extension',
    async run(m) {
      const { sessionId } = readDesktop(m);
      const st = await desktopState();
      if (sessionId === undefined) return { ok: true, ...st };
      await endTypingOf(readDesktop(m).task);
      // A task's session keeps what it moved to the desktop with (its steps); it hears whether the agent has grants.
      const s = mustSession(sessionId);
      s.desktop.choice = st.offered ? st : null;
      if (!st.offered) return { ok: true, ...st };
      const grants = await taskGrants(st);
      return { ok: true, ...st, ...(grants ? { grants } : {}) };
    },
  },
  [DESKTOP.OBSERVE]: {
    from: 'extension',
    run(m) {
      const { sessionId, task, taskText } = readDesktop(m);
      return answer(async () => {
        const s = mustSession(sessionId);
        return reply.observed(await observeDesktop(s, await choiceOf(s), { task, taskText }));
      });
    },
  },
  [DESKTOP.ACT]: {
    from: 'extension',
    run(m) {
      const a = readDesktopAct(m);
      return answer(async () => {
        const s = mustSession(a.sessionId);
        return reply.acted(await actOnDesktop(s, await choiceOf(s), a));
      });
    },
  },
  [DESKTOP.STOP]: {
    from: 'extension',
    run(m) {
      const { sessionId, task } = readDesktopStop(m);
      stopDesktop(findSession(sessionId));
      endTypingOf(task);
      return reply.detached();
    },
  },
  [DESKTOP.CHECK_PROFILE]: { from: 'extension', run: (m) => checkProfile(readProfileCheck(m)) },
  [DESKTOP.GET_GRANTS]: { from: 'extension', run: () => getGrants() },
  [DESKTOP.SET_GRANTS]: { from: 'extension', run: (m) => setGrants(readGrants(m)) },
  [DESKTOP.FORGET_CHOICES]: {
    from: 'extension',
    async run(m) {
      await forgetDesktopChoices(readForget(m).ids);
      return { ok: true, choices: await desktopChoices() };
    },
  },
};

/**
 * Wires the desktop half: run is the bridge's execute path for the agent's
 * calls, origin the extension's own (what the host judges them under). The
 * offer is asked again on each host event about providers or tools.
 */
export function initDesktop({ run, origin }) {
  setDesktopRunner(run);
  agentOrigin = origin;
  const again = () => { recheck().catch(() => {}); };
  // Every open Side Panel hears that the offer changed, and asks for it.
  onDesktopChange(() => toPanels(desktopPush()));
  host.on('capabilities.changed', again);
  host.on('provider.state', again);
}
