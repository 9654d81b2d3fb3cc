// Choices the person made in the approval window that answer later questions:
//   "Allow for this session": kept in chrome.storage.session under
//     "remember:<origin>" ({capability: {at, entry}}), never written to the
//     host's config; it answers the host's next questions about that tool on
//     that site until the site is stopped or the browser restarts (the
//     browser empties storage.session).
//   "Always allow on this site": written into the host's policy (policy.set,
//     the tool set to allow), so it shows, and can be undone, in "What this
//     site may run"; noted in the trusted store (shared/trusted_store.js,
//     which no content script can write, Firefox's included) under
//     "always:<origin>" so "Ask for everything again" knows which allows the
//     window made.
// Only the approval window (an extension page) writes them, through the
// worker's handlers, which take those messages from extension pages only.
import { host } from '../../shared/host.js';
import { METHODS } from '../../shared/core/methods.js';
import { allDecisions, writeGrants, hostError } from './host_queries.js';
import { session } from './site_state.js';
import { alwaysKey, sessionKey } from '../core/allow_choices.js';
import { adoptFromLocal, trustedRemove, trustedSet } from '../../shared/trusted_store.js';

/** Tells the options page the "always" notes of an origin changed (storage.session, out of content scripts' reach). */
function changed(origin) {
  return session.set({ [alwaysKey(origin)]: Date.now() }).catch(() => {});
}

/** The "always" notes of an origin ({capability: {at, entry}}). */
async function alwaysOf(origin) {
  const v = await adoptFromLocal(alwaysKey(origin));
  return v && typeof v === 'object' ? v : {};
}

async function read(area, key) {
  return (await area.get(key))[key] || {};
}

/** The person's "for this session" choice about a tool on a site ({at, entry}), or null. */
export async function sessionChoice(origin, capability) {
  const choices = await read(session, sessionKey(origin));
  return Object.hasOwn(choices, capability) ? choices[capability] : null;
}

/** Remembers "allow for this session" for a tool on a site; entry is the activity entry that made it. */
export async function rememberForSession(origin, capability, entry) {
  const choices = await read(session, sessionKey(origin));
  choices[capability] = { at: Date.now(), entry };
  await session.set({ [sessionKey(origin)]: choices });
}

/**
 * "Always allow on this site": sets the tool to allow in the host's policy
 * for the origin, keeping every other decision as the host has it now.
 * @returns {Promise<{ok: boolean, error?: string}>}
 */
export async function rememberAlways(origin, capability, entry) {
  const now = await host.request(METHODS.POLICY_GET, { origin }, { timeoutMs: 10_000 });
  if (!now.ok) return { ok: false, error: hostError(now) };
  let saved;
  try {
    saved = await writeGrants(origin, { ...(now.decisions || {}), [capability]: 'allow' });
  } catch (err) {
    return { ok: false, error: String(err?.message || err) };
  }
  if (!saved.ok) return saved;
  const made = await alwaysOf(origin);
  made[capability] = { at: Date.now(), entry };
  await trustedSet(alwaysKey(origin), made);
  await changed(origin);
  return { ok: true };
}

/**
 * The choices remembered for a site: for this session, and always (with what
 * the host decides for each now: an "always" the person changed back on the
 * options page says so).
 */
export async function remembered(origin) {
  const forSession = await read(session, sessionKey(origin));
  const always = await alwaysOf(origin);
  let decisions = {};
  if (Object.keys(always).length) {
    const now = await host.request(METHODS.POLICY_GET, { origin }, { timeoutMs: 10_000 }).catch(() => null);
    decisions = now?.ok ? await allDecisions(origin, now.decisions) : {};
  }
  const listOf = (map, extra = () => ({})) => Object.entries(map).map(([capability, c]) => ({ capability, at: c.at, entry: c.entry, ...extra(capability) }))
    .sort((a, b) => a.capability.localeCompare(b.capability));
  return {
    ok: true, origin, session: listOf(forSession),
    always: listOf(always, (capability) => ({ now: decisions[capability] || null })).filter((c) => c.now === 'allow'),
  };
}

/**
 * "Ask for everything again": forgets the site's session choices, and sets
 * each tool the approval window made "always allowed" (and still allowed) back
 * to ask in the host's policy. Allows chosen on the options page stay.
 */
export async function forget(origin) {
  await session.remove(sessionKey(origin));
  const always = await alwaysOf(origin);
  const names = Object.keys(always);
  if (!names.length) return { ok: true };
  const now = await host.request(METHODS.POLICY_GET, { origin }, { timeoutMs: 10_000 });
  if (!now.ok) return { ok: false, error: hostError(now) };
  const decisions = await allDecisions(origin, now.decisions);
  const back = Object.fromEntries(names.filter((n) => decisions[n] === 'allow').map((n) => [n, 'ask']));
  if (Object.keys(back).length) {
    const saved = await writeGrants(origin, { ...(now.decisions || {}), ...back });
    if (!saved.ok) return saved;
  }
  await trustedRemove(alwaysKey(origin));
  await changed(origin);
  return { ok: true, asked: Object.keys(back) };
}

/** Forgets an origin's session choices when it is stopped (its entry leaves storage.session's "armed"). */
export function init() {
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== 'session' || !changes.armed) return;
    const before = changes.armed.oldValue || {};
    const after = changes.armed.newValue || {};
    const stopped = Object.keys(before).filter((o) => !after[o]);
    if (stopped.length) session.remove(stopped.map(sessionKey)).catch(() => {});
  });
}
