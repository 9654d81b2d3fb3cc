// What the bridge asks the host outside a call: the tool prefixes the gate
// accepts, an origin's grants (read, and written only for the extension's
// own pages), the capability prompt and the host's status. The extension's
// own browser.* tools stand beside the host's in each (their decisions are
// browser_grants.js's, their descriptions core/browser_tools.js's).
import { host } from '../../shared/host.js';
import { METHODS } from '../../shared/core/methods.js';
import { buildCapabilityPrompt, promptDecisions, promptSummary, promptedTools } from '../core/capability_prompt.js';
import { checkGrants, providerCapabilities } from '../core/grants.js';
import { loadSettings, requireOrigin } from './site_state.js';
import { protocolFit } from '../../shared/core/protocol.js';
import { sessionKey } from '../core/allow_choices.js';
import { BROWSER_PREFIX, browserCapabilities, isBrowserCapability } from '../core/browser_tools.js';
import { browserDecisions, setBrowserDecisions } from './browser_grants.js';
import { features } from '../../shared/browser.js';

/** The browser.* capabilities as this browser offers them (Firefox: those that need chrome.debugger marked unavailable). */
const ownCapabilities = () => browserCapabilities({ debugger: features().debugger });

/** grants split into the host's and the extension's own (browser.*). */
function split(grants) {
  const hostPart = {};
  const browserPart = {};
  for (const [name, d] of Object.entries(grants)) (isBrowserCapability(name) ? browserPart : hostPart)[name] = d;
  return { hostPart, browserPart };
}

/**
 * An origin's decisions, the host's and the browser tools' together (the
 * latter only once chosen: until then the site gets none of them).
 */
export async function allDecisions(origin, hostDecisions) {
  const own = await browserDecisions(origin);
  return { ...(hostDecisions || {}), ...own.decisions };
}

export async function prefixes() {
  let health = host.status().health;
  if (!health) {
    try {
      health = await host.health({ timeoutMs: 5000 });
    } catch {
      health = null;
    }
  }
  const list = (health?.providers || []).map((p) => p.prefix).filter((p) => typeof p === 'string' && p);
  return [...new Set([...(list.length ? list : ['computer']), BROWSER_PREFIX])];
}

/** Host reply → the page's error text. */
export function hostError(reply) {
  return `${reply.code}: ${reply.message}`;
}

/** What the options page shows about an origin's grants: every provider capability and the host's decisions. */
export async function readGrants(origin) {
  requireOrigin(origin);
  const [list, policy] = await Promise.all([
    host.request(METHODS.CAPABILITIES_LIST, undefined, { timeoutMs: 10_000 }),
    host.request(METHODS.POLICY_GET, { origin }, { timeoutMs: 10_000 }),
  ]);
  if (!list.ok) return { ok: false, error: hostError(list) };
  if (!policy.ok) return { ok: false, error: hostError(policy) };
  return {
    ok: true, origin, configured: !!policy.configured, decisions: await allDecisions(origin, policy.decisions),
    capabilities: [...providerCapabilities(list.capabilities), ...ownCapabilities()],
    ...(policy.clash ? { clash: policy.clash } : {}),
  };
}

/**
 * Sets the origin's grants in the host's configuration. Capabilities the page
 * did not show (a provider that listed its tools after the page loaded) keep
 * what the host decides for them now, so saving never changes what was not
 * on screen; when nothing differs, nothing is written. Only ever called for
 * the extension's own pages.
 */
export async function writeGrants(origin, grants) {
  requireOrigin(origin);
  const { hostPart: shown, browserPart } = split(checkGrants(grants));
  const reply = await writeHostGrants(origin, shown);
  if (!reply.ok) return reply;
  if (Object.keys(browserPart).length) {
    const before = (await browserDecisions(origin)).decisions || {};
    await setBrowserDecisions(origin, browserPart);
    await forgetContradicted(origin, Object.keys(browserPart).filter((n) => before[n] !== browserPart[n]));
  }
  return { ...reply, decisions: await allDecisions(origin, reply.decisions) };
}

/** The host's part of writeGrants (nothing is written when it holds no host tool). */
async function writeHostGrants(origin, shown) {
  const now = await host.request(METHODS.POLICY_GET, { origin }, { timeoutMs: 10_000 });
  if (!now.ok) return { ok: false, error: hostError(now) };
  if (!Object.keys(shown).length) return { ok: true, origin, configured: !!now.configured, decisions: now.decisions || {} };
  const merged = now.configured ? { ...now.decisions, ...shown } : shown;
  // Nothing to change: no write, so grants the host holds for capabilities not
  // registered right now (a provider still starting) are not dropped. A clash
  // of the origin's keys is always written over: the write leaves one key.
  if (now.configured && !now.clash && Object.entries(merged).every(([name, d]) => now.decisions[name] === d)) {
    return { ok: true, origin, configured: true, decisions: now.decisions };
  }
  const reply = await host.request(METHODS.POLICY_SET, { origin, grants: merged }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: hostError(reply) };
  const after = reply.decisions || {};
  const before = now.configured ? now.decisions || {} : {};
  await forgetContradicted(origin, [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((n) => before[n] !== after[n]));
  return { ok: true, origin, configured: !!reply.configured, decisions: after };
}

/**
 * A tool's grant changed: its "allow for this session" choice on the site is
 * forgotten (set to Block it contradicts it, to Allow it is moot, and set
 * back to Ask later the site is asked again).
 */
async function forgetContradicted(origin, names) {
  if (!names.length) return;
  const key = sessionKey(origin);
  const choices = (await chrome.storage.session.get(key))[key];
  if (!choices || !names.some((n) => Object.hasOwn(choices, n))) return;
  for (const n of names) delete choices[n];
  await chrome.storage.session.set({ [key]: choices });
}

/**
 * The host's state for the pages: its last health (refresh: asked now) or
 * the transport's error. reconnect starts a new host process when the one
 * connected speaks another protocol, so a host updated since is met (the
 * browser keeps the old process for as long as the port is open).
 */
export async function hostStatus(refresh, reconnect = false) {
  let health = null;
  let error = null;
  const current = host.status().health;
  if (reconnect && current && !protocolFit(current).fits) {
    host.close();
    try {
      host.connect();
    } catch {
      // the status says why; health below reports it
    }
  }
  try {
    health = refresh ? await host.health({ timeoutMs: 5000 }) : host.status().health || null;
  } catch (err) {
    error = { code: err.code, message: err.message, advice: err.advice };
  }
  const status = host.status();
  return { ok: true, status, health, error: error || status.error || null };
}

/**
 * The capability prompt. With an origin it lists only what that origin may
 * run (the host's decisions: allow and ask, ask marked; deny left out), with
 * choices (the options page's table, not saved before Start) over them.
 */
export async function capabilityPrompt(origin, choices) {
  let decisions;
  if (origin) {
    requireOrigin(origin);
    const policy = await host.request(METHODS.POLICY_GET, { origin }, { timeoutMs: 10_000 });
    if (!policy.ok) return { ok: false, error: hostError(policy) };
    try {
      decisions = promptDecisions(await allDecisions(origin, policy.decisions), choices);
    } catch (err) {
      return { ok: false, error: err.message };
    }
  }
  const list = await host.request(METHODS.CAPABILITIES_LIST, undefined, { timeoutMs: 10_000 });
  if (!list.ok) return { ok: false, error: hostError(list) };
  const wanted = list.capabilities.filter((c) => !decisions || c.name.startsWith('capabilities.') || ['allow', 'ask'].includes(decisions[c.name]));
  const described = await Promise.all(wanted.map(async (c) => {
    const d = await host.request(METHODS.CAPABILITIES_DESCRIBE, { name: c.name }, { timeoutMs: 10_000 });
    return d.ok ? { ...c, description: d.description ?? c.description, inputSchema: d.inputSchema } : c;
  }));
  described.push(...ownCapabilities().filter((c) => !decisions || ['allow', 'ask'].includes(decisions[c.name]) || c.unavailable));
  const images = origin ? (await loadSettings(origin)).attachBy !== 'none' : true;
  const text = buildCapabilityPrompt(described, { prefixes: await prefixes(), decisions, images });
  const tools = promptedTools(described, decisions);
  return { ok: true, text, count: tools.length, summary: promptSummary(tools, decisions) };
}
