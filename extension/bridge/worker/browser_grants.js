// What each chat site may run of the extension's own browser.* tools: a
// decision per tool (allow, ask, deny), as the host keeps the decisions for
// its tools in its configuration. The host never sees these calls, so they
// are kept here, in the trusted store (shared/trusted_store.js: the
// extension origin's own IndexedDB, which no content script can open, in
// Firefox too), and written only through the worker's handlers for the
// extension's own pages: the options page's table, and the approval
// window's "Always allow on this site". A site with no entry here gets
// nothing (every browser.* call is refused until the person chooses).
import { browserTool } from '../core/browser_tools.js';
import { DECISIONS } from '../core/grants.js';
import { trustedGet, trustedSet } from '../../shared/trusted_store.js';

const keyOf = (origin) => `browser-grants:${origin}`;

/**
 * An origin's browser.* decisions.
 * @returns {Promise<{configured: boolean, decisions: Record<string, 'allow'|'ask'|'deny'>}>}
 */
export async function browserDecisions(origin) {
  const stored = await trustedGet(keyOf(origin));
  const decisions = {};
  if (stored && typeof stored === 'object') {
    for (const [name, d] of Object.entries(stored.decisions || {})) if (browserTool(name) && DECISIONS.includes(d)) decisions[name] = d;
  }
  return { configured: Boolean(stored && typeof stored === 'object'), decisions };
}

/** What an origin's call of a browser.* tool gets now: allow, ask or deny (deny for anything undecided). */
export async function browserDecision(origin, capability) {
  const { decisions } = await browserDecisions(origin);
  return decisions[capability] || 'deny';
}

/**
 * Sets some of an origin's browser.* decisions (the others stay as they
 * are); the names and decisions were checked by the caller (core/grants.js checkGrants).
 * @returns {Promise<Record<string, string>>} the origin's decisions now
 */
export async function setBrowserDecisions(origin, changes) {
  const { decisions } = await browserDecisions(origin);
  for (const [name, d] of Object.entries(changes)) {
    if (!browserTool(name)) throw new Error(`${name} is not one of the browser tools`);
    decisions[name] = d;
  }
  await trustedSet(keyOf(origin), { decisions });
  return decisions;
}
