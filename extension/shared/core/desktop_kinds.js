// What a call of the browser agent on the computer's desktop does, in three
// kinds, and how the agent's grants and remembered choices decide it:
//   look   screenshots of the whole screen
//   point  clicks, pointer moves, drags and scrolling
//   type   typed text and key presses
// A desktop server may do all three through one tool (computer-use-mcp's
// `computer`), so the kind of a call comes from its exact arguments matched
// against the desktop profile (agent/core/desktop_call_kind.js), never from
// the tool's name. The person grants each kind Allow, Ask or Block; a call
// of a kind set to Ask is answered in the approval window, where "allow
// looking" or "allow pointing" may be remembered for the browser session and
// "allow typing" only for the task that asked (so no later task, whatever
// page it reads, types without a window). The host is told Ask for every tool
// a kind not blocked uses, so each call comes to the extension to be judged
// by its kind. Pure: shared by the agent's worker, the bridge's approval
// window and the pages that show the grants.

/** The kinds, weakest first. */
export const DESKTOP_KINDS = Object.freeze(['look', 'point', 'type']);

/** How each kind reads where the person decides about it. */
export const KIND_WORDS = Object.freeze({
  look: Object.freeze({ name: 'Looking', what: 'screenshots of the whole screen', verb: 'take a screenshot of your screen' }),
  point: Object.freeze({ name: 'Pointing and clicking', what: 'clicks, pointer moves, drags and scrolling', verb: 'move the pointer, click, drag or scroll on your desktop' }),
  type: Object.freeze({ name: 'Typing and keys', what: 'typed text and key presses (Enter, Ctrl+Alt+T…)', verb: 'type text or press keys on your desktop' }),
});

/** What a call matching no profile action is: it can do anything the tool does. */
export const UNKNOWN_KIND_WORDS = Object.freeze({ name: 'Something the desktop profile does not describe', what: 'a call of the desktop server no agent action makes', verb: 'run a call of the desktop server that no agent action makes' });

/** The suggestion: looking runs, acting asks. */
export const SUGGESTED_KINDS = Object.freeze({ look: 'allow', point: 'ask', type: 'ask' });

/** How long an "allow" remembered in the approval window lasts, per kind. */
export const REMEMBER_SCOPE = Object.freeze({ look: 'session', point: 'session', type: 'task' });

/** The three grant decisions, as the host names them. */
const DECISIONS = new Set(['allow', 'ask', 'deny']);

/** The kind that can do the most of several (type > point > look); null for none. */
export function strongestKind(kinds) {
  let best = -1;
  for (const k of kinds || []) best = Math.max(best, DESKTOP_KINDS.indexOf(k));
  return best < 0 ? null : DESKTOP_KINDS[best];
}

/** Whether v is a whole set of kind grants ({look, point, type} → allow | ask | deny). */
export function validKindGrants(v) {
  return Boolean(v) && typeof v === 'object' && DESKTOP_KINDS.every((k) => DECISIONS.has(v[k]));
}

/**
 * The host's decision for each tool of the profile, from the kind grants:
 * Block when every kind the tool serves is blocked, else Ask, so that every
 * call of it comes to the extension to be judged by its own kind (a tool is
 * never allowed by name: its calls may do more than the kind it was granted
 * for).
 * @param {{look:string, point:string, type:string}} grants
 * @param {Object<string, string[]>} toolKinds capability -> the kinds its calls in the profile are
 */
export function hostDecisions(grants, toolKinds) {
  const out = {};
  for (const [capability, kinds] of Object.entries(toolKinds)) {
    out[capability] = kinds.length && kinds.every((k) => grants[k] === 'deny') ? 'deny' : 'ask';
  }
  return out;
}

/**
 * The kind grants the host's decisions amount to, for a configuration no
 * kind grants were saved for (an older version's, or one written by hand):
 * a kind is allowed when every tool that serves it is allowed, blocked when
 * any is blocked (or not granted at all), asked otherwise.
 * @param {Object<string, string>} decisions the host's, by capability
 * @param {Object<string, string[]>} toolKinds
 */
export function kindsFromHost(decisions, toolKinds) {
  const out = {};
  for (const kind of DESKTOP_KINDS) {
    const tools = Object.keys(toolKinds).filter((c) => toolKinds[c].includes(kind));
    const d = tools.map((c) => decisions[c] || 'deny');
    out[kind] = !d.length || d.some((x) => x === 'deny') ? 'deny' : d.every((x) => x === 'allow') ? 'allow' : 'ask';
  }
  return out;
}

/** Whether saved kind grants still agree with what the host decides for the profile's tools. */
export function agreesWithHost(grants, decisions, toolKinds) {
  const want = hostDecisions(grants, toolKinds);
  return Object.keys(want).every((c) => (decisions[c] || 'deny') === want[c]);
}

/**
 * Whether a remembered choice answers a call: same server and kind, and for
 * a task's choice the same task.
 * @param {{kind:string, prefix:string, scope:string, task?:string}} choice
 * @param {{kind:string|null, prefix:string, task?:string}} call
 */
export function choiceApplies(choice, call) {
  if (!choice || !call?.kind || choice.kind !== call.kind || choice.prefix !== call.prefix) return false;
  if (choice.scope === 'task') return Boolean(call.task) && choice.task === call.task;
  return choice.scope === 'session' && REMEMBER_SCOPE[call.kind] === 'session';
}

/**
 * How the extension answers the host's question about one of the agent's
 * desktop calls: by the grant of its kind, then by a remembered choice;
 * else the person is asked. A call of no known kind is always asked.
 * @param {{kind:string|null, prefix:string, task?:string}} call
 * @param {{grants?:object|null, choices?:object[]}} state the kind grants saved, the choices remembered
 * @returns {{answer:'allow'|'deny'|'ask', by:'grant'|'remembered'|'person', choice?:object}}
 */
export function judgeDesktopCall(call, { grants = null, choices = [] } = {}) {
  if (!call?.kind || !DESKTOP_KINDS.includes(call.kind)) return { answer: 'ask', by: 'person' };
  const grant = validKindGrants(grants) ? grants[call.kind] : 'ask';
  if (grant === 'allow') return { answer: 'allow', by: 'grant' };
  if (grant === 'deny') return { answer: 'deny', by: 'grant' };
  const choice = (choices || []).find((c) => choiceApplies(c, call));
  return choice ? { answer: 'allow', by: 'remembered', choice } : { answer: 'ask', by: 'person' };
}

/**
 * The choices a save of kind grants leaves: only those of a kind that was
 * Ask and stays Ask. A kind changed to Block contradicts them, one changed
 * to Allow makes them moot, and one changed back to Ask later starts from
 * nothing remembered.
 */
export function choicesAfterSave(choices, before, after) {
  return (choices || []).filter((c) => before?.[c.kind] === 'ask' && after?.[c.kind] === 'ask');
}
