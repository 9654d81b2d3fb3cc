// How the options page lays out "What this site may run" for servers with
// dozens of tools: the groups (read-only, destructive, other, the tools
// the host cannot run, and the extension's own Browser tools), which groups start folded, the filter, the counts a
// group's header shows and its bulk choice, and the words for a policy whose
// keys clash in the host's configuration. Pure: no chrome.* and no DOM.
import { DECISIONS, hasHints, titleOf, toolHints } from './grants.js';

/** The groups, in the order the page shows them. */
export const GROUPS = Object.freeze([
  { id: 'read-only', title: 'Read-only', hint: 'They say they only read and change nothing.' },
  { id: 'destructive', title: 'Destructive', hint: 'They say they may delete or overwrite things.' },
  { id: 'other', title: 'Other', hint: 'They change things without saying they destroy any, or give no hints at all.' },
  { id: 'unavailable', title: 'Cannot run', hint: 'The host cannot run these; the model is never offered them.' },
  { id: 'browser', title: 'Browser', hint: 'Gnosis itself runs these, only on the tabs you share with this site (Share with, in the side panel or the toolbar menu).' },
]);

/** A group longer than this starts folded: its header's counts and bulk choice stand for it. */
export const FOLD_ABOVE = 20;

/**
 * The group of a capability: 'browser' for the extension's own tools,
 * 'unavailable' when the host says it cannot run it, else by what its hints say (the same reading as its badges): read-only
 * and not destructive, destructive, or other (which holds tools with no hints).
 * @param {{annotations?: object, unavailable?: string}} c
 */
export function groupOf(c) {
  // The extension's own tools stay together, those this browser cannot run among them with their reason.
  if (c?.group === 'browser') return 'browser';
  if (c?.unavailable) return 'unavailable';
  if (!hasHints(c?.annotations)) return 'other';
  const h = toolHints(c.annotations);
  if (h.readOnly && !h.destructive) return 'read-only';
  return h.destructive ? 'destructive' : 'other';
}

/**
 * The capabilities by group, in GROUPS' order, each group's capabilities in
 * the order given; empty groups left out.
 * @returns {Array<{id: string, title: string, hint: string, capabilities: object[]}>}
 */
export function groupCapabilities(capabilities) {
  return GROUPS.map((g) => ({ ...g, capabilities: (capabilities || []).filter((c) => groupOf(c) === g.id) }))
    .filter((g) => g.capabilities.length);
}

/**
 * Whether a group starts folded: a long one, and the Browser group (the
 * extension's own tools, the same on every site), whose header's counts and
 * bulk choice stand for it until it is opened.
 */
export function startsFolded(group) {
  return group.id === 'browser' || group.capabilities.length > FOLD_ABOVE;
}

/**
 * Whether a capability matches the filter text: every word of the query
 * appears, ignoring case, in its name, its title or its description.
 */
export function matchesFilter(c, query) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const haystack = [c?.name, titleOf(c), c?.description].filter(Boolean).join('\n').toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/** How many of names are decided allow, ask and deny in choices. */
export function countDecisions(choices, names) {
  const n = { allow: 0, ask: 0, deny: 0 };
  for (const name of names) if (choices?.[name] in n) n[choices[name]]++;
  return n;
}

/** A group header's counts: "2 allowed · 5 ask · 1 blocked", leaving out what is zero. */
export function groupSummary(choices, names) {
  const n = countDecisions(choices, names);
  const parts = [[n.allow, 'allowed'], [n.ask, 'ask'], [n.deny, 'blocked']].filter(([k]) => k > 0).map(([k, w]) => `${k} ${w}`);
  return parts.join(' · ') || 'none';
}

/** The decision every one of names has, or null when they differ (or there are none). */
export function uniformDecision(choices, names) {
  const seen = new Set(names.map((n) => choices?.[n]));
  return names.length && seen.size === 1 && DECISIONS.includes([...seen][0]) ? [...seen][0] : null;
}

/** The changes that set each of names to decision (a group's bulk choice). */
export function setEach(names, decision) {
  if (!DECISIONS.includes(decision)) throw new Error(`decision ${decision} must be allow, ask or deny`);
  return Object.fromEntries(names.map((n) => [n, decision]));
}

/**
 * What the page says when the host reports that the policy entry judging
 * the origin is written under several keys (policy.get's clash): the host
 * cannot tell which was meant, so the origin is denied everything until one
 * key is left. Saving the origin's grants (policy.set) writes one key in
 * place of its own spellings; a glob's clash needs the file fixed, though
 * saving gives this origin an entry of its own, which then judges it.
 * @param {{origin: string, keys: string[]}} clash
 * @param {string} origin the origin being edited
 * @returns {{title: string, lead: string, keys: string[], fix: string}}
 */
export function clashView(clash, origin) {
  const glob = clash.origin !== origin;
  return {
    title: glob ? 'Every site this entry covers gets nothing until the configuration is fixed' : 'This site gets nothing until the configuration is fixed',
    lead: glob
      ? `The host's configuration writes the entry for ${clash.origin}, which covers this site, under ${clash.keys.length} keys that mean the same thing. The host cannot tell which one you meant, so it blocks every tool there:`
      : `The host's configuration writes this site's entry under ${clash.keys.length} keys that mean the same origin. The host cannot tell which one you meant, so it blocks every tool here:`,
    keys: [...clash.keys],
    fix: glob
      ? 'Saving the choices below gives this site an entry of its own; remove all but one of those keys from the configuration file for the other sites.'
      : 'Choose below, then save: the host writes one key in place of them.',
  };
}
