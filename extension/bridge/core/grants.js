// Per-origin grants as the options page shows them and the worker sends them
// to the host (policy.get / policy.set): what each capability's MCP
// annotations mean, which choice to suggest for an origin that has none, the
// summary line, and the check of a grants object before it leaves the worker.
// Pure: no chrome.* and no DOM.

/** The three decisions, in the order the page shows them. */
export const DECISIONS = Object.freeze(['allow', 'ask', 'deny']);

/** What each decision is called on the page. */
export const DECISION_LABELS = Object.freeze({ allow: 'Allow', ask: 'Ask each time', deny: 'Block' });

/** The same, short enough for a segmented control in a row of the grants table. */
export const DECISION_SHORT = Object.freeze({ allow: 'Allow', ask: 'Ask', deny: 'Block' });

/** Capabilities every origin may run whatever its grants (the host never asks about them). */
export function isMetaCapability(name) {
  return typeof name === 'string' && name.startsWith('capabilities.');
}

/**
 * A grant name the host accepts: "<prefix>.<tool>", both parts non-empty, no
 * glob. The tool part may hold single spaces between visible characters
 * ("greet (structured)"), as real servers name tools; no other space,
 * control, format or unassigned character anywhere.
 */
export function isGrantName(name) {
  if (typeof name !== 'string' || isMetaCapability(name)) return false;
  const dot = name.indexOf('.');
  const prefix = name.slice(0, dot);
  const tool = name.slice(dot + 1);
  // Words of visible characters, single spaces between them.
  return dot > 0 && /^[^.*\s\p{C}\p{Z}]+$/u.test(prefix) && /^[^*\s\p{C}\p{Z}]+(?: [^*\s\p{C}\p{Z}]+)*$/u.test(tool);
}

/**
 * The MCP tool hints with the protocol's defaults filled in. destructive and
 * idempotent only mean something for a tool that is not read-only, so a
 * read-only tool counts as destructive only when it says so explicitly.
 * @param {object} [annotations] the tool's annotations as the host reports them
 * @returns {{readOnly: boolean, destructive: boolean, idempotent: boolean, openWorld: boolean}}
 */
export function toolHints(annotations) {
  const a = annotations && typeof annotations === 'object' ? annotations : {};
  const readOnly = a.readOnlyHint === true;
  return {
    readOnly,
    destructive: readOnly ? a.destructiveHint === true : a.destructiveHint !== false,
    idempotent: readOnly || a.idempotentHint === true,
    openWorld: a.openWorldHint !== false,
  };
}

/** Whether the annotations give any of the four MCP hints (a title alone is not a hint). */
export function hasHints(annotations) {
  const a = annotations && typeof annotations === 'object' ? annotations : {};
  return ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].some((k) => typeof a[k] === 'boolean');
}

/**
 * The badges shown next to a capability, most important first. A tool that
 * gives no hints gets one badge saying so, rather than the protocol's
 * defaults dressed up as claims the server never made.
 * @returns {Array<{key: string, label: string, hint: string}>}
 */
export function badgesFor(annotations) {
  if (!hasHints(annotations)) {
    return [{ key: 'no-hints', label: 'no hints', hint: 'the server says nothing about what this tool does: treat it as able to delete or overwrite things' }];
  }
  const h = toolHints(annotations);
  const out = [];
  if (h.destructive) out.push({ key: 'destructive', label: 'destructive', hint: 'may delete or overwrite things' });
  if (h.readOnly) out.push({ key: 'read-only', label: 'read-only', hint: 'only reads, changes nothing' });
  if (h.idempotent && !h.readOnly) out.push({ key: 'idempotent', label: 'idempotent', hint: 'running it twice changes nothing more' });
  if (h.openWorld) out.push({ key: 'open-world', label: 'open-world', hint: 'reaches outside this computer or app' });
  return out;
}

/** The name a person reads: the tool's title, its annotations' title, or its name. */
export function titleOf(capability) {
  const t = capability?.title || capability?.annotations?.title;
  return typeof t === 'string' && t.trim() ? t.trim() : String(capability?.name ?? '');
}

/** The suggestion for an origin with no grants yet: Allow only what is read-only and not destructive. */
export function suggestedDecision(annotations) {
  const h = toolHints(annotations);
  return h.readOnly && !h.destructive ? 'allow' : 'ask';
}

/** The provider capabilities of a capabilities.list reply, sorted by name (meta ones left out). */
export function providerCapabilities(list) {
  return (Array.isArray(list) ? list : [])
    .filter((c) => c && typeof c.name === 'string' && !isMetaCapability(c.name))
    .map((c) => ({
      name: c.name, description: c.description ?? '', title: c.title, annotations: c.annotations,
      ...(typeof c.unavailable === 'string' && c.unavailable ? { unavailable: c.unavailable } : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The choices the page starts from. A configured origin shows what the host
 * decides now (a capability the host did not mention is blocked); an origin
 * with no entry gets the suggestion for each capability.
 * @param {Array<{name: string, annotations?: object}>} capabilities provider capabilities
 * @param {{configured?: boolean, decisions?: Object<string, string>}} policy the policy.get reply
 * @returns {Object<string, 'allow'|'ask'|'deny'>}
 */
export function initialChoices(capabilities, policy) {
  const out = {};
  for (const c of capabilities) {
    const d = policy?.decisions?.[c.name];
    if (policy?.configured) out[c.name] = DECISIONS.includes(d) ? d : 'deny';
    else out[c.name] = suggestedDecision(c.annotations);
  }
  return out;
}

/** Every capability set to one decision ("Block all", "Ask for all"). */
export function setAll(choices, decision) {
  if (!DECISIONS.includes(decision)) throw new Error(`decision ${decision} must be allow, ask or deny`);
  return Object.fromEntries(Object.keys(choices).map((name) => [name, decision]));
}

/** "3 allowed, 5 ask, 2 blocked". */
export function summarize(choices) {
  const n = { allow: 0, ask: 0, deny: 0 };
  for (const d of Object.values(choices || {})) if (d in n) n[d]++;
  return `${n.allow} allowed, ${n.ask} ask, ${n.deny} blocked`;
}

/**
 * Checks grants before the worker sends them to policy.set. Returns the
 * grants as a fresh plain object, or throws saying what is wrong.
 * @param {unknown} grants
 * @returns {Object<string, 'allow'|'ask'|'deny'>}
 */
export function checkGrants(grants) {
  if (!grants || typeof grants !== 'object' || Array.isArray(grants)) throw new Error('grants must be an object of capability → allow, ask or deny');
  const out = {};
  for (const [name, decision] of Object.entries(grants)) {
    if (!isGrantName(name)) throw new Error(`grant name ${JSON.stringify(name)} must be <prefix>.<tool>`);
    if (!DECISIONS.includes(decision)) throw new Error(`decision for ${name} must be allow, ask or deny, not ${JSON.stringify(decision)}`);
    out[name] = decision;
  }
  return out;
}
