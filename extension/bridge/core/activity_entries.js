// The activity log: one entry for every call the bridge judged and for every
// task the browser agent ran, what each entry holds, how it reads, which
// entries a filter keeps, and the bound (the newest 1,000 entries of the last
// 30 days). Arguments, results and texts are redacted by the host's rules
// (redact.js) before they are kept. The worker stores the entries
// (bridge/worker/activity_log.js); the options page shows them. Pure.
import { redactFreeText, redactJSON, redactKnowing, redactRaw, truncate, utf8Length } from './redact.js';
import { REMEMBER } from './allow_choices.js';
import { CODES, TRANSPORT_CODES } from '../../shared/core/codes.js';
import { KIND_WORDS, REMEMBER_SCOPE as KIND_SCOPE } from '../../shared/core/desktop_kinds.js';

/** The bound: at most this many entries, none older than this. Whichever keeps fewer wins. */
export const LIMITS = Object.freeze({ maxEntries: 1000, maxAgeMs: 30 * 24 * 60 * 60 * 1000 });

/** Bytes kept of a task's text or an error message. */
const MAX_TEXT_BYTES = 500;

/**
 * How a call was decided. `by` says who decided, as the view tells it.
 *   granted     the site's grants allow it: it ran without a question
 *   allowed     asked, and you allowed it (remember: once, session or always)
 *   remembered  asked, and your earlier "for this session" choice allowed it
 *   denied      asked, and you said no (or closed the window)
 *   timed-out   asked, and nobody answered in time
 *   unanswered  asked, and the call ended before an answer (the site was stopped)
 *   blocked     the site's grants do not allow it
 *   stopped     the bridge's safety limits stopped the site before it ran
 *   not-a-call  the reply looked like a call but is not one under the contract
 *   refused     the host refused it before judging it (unknown tool, bad arguments, no host)
 */
export const DECISIONS = Object.freeze({
  GRANTED: 'granted', ALLOWED: 'allowed', REMEMBERED: 'remembered', DENIED: 'denied', TIMED_OUT: 'timed-out',
  UNANSWERED: 'unanswered', BLOCKED: 'blocked', STOPPED: 'stopped', NOT_A_CALL: 'not-a-call', REFUSED: 'refused',
});


/** The outcome filter of the view: its choices, in order, with their labels. */
export const OUTCOME_FILTERS = Object.freeze([
  ['ran', 'Ran'], ['failed', 'Failed'], ['asked', 'Asked you'], ['denied', 'Denied or no answer'],
  ['blocked', 'Blocked or not run'], ['not-a-call', 'Not a call'], ['task', 'Agent tasks'],
]);

/** The code of a reply that went through: what the entry shows for a result. */
export const OK = 'OK';

// Codes a call can end with once the host let it run: without a question, it was granted.
const AFTER_THE_CALL = new Set([CODES.EXECUTION_ERROR, CODES.TIMEOUT, CODES.CANCELLED]);
// Codes of a host the browser could not reach or lost.
const HOST_UNREACHABLE = new Set([TRANSPORT_CODES.HOST_NOT_FOUND, TRANSPORT_CODES.HOST_FORBIDDEN, TRANSPORT_CODES.HOST_EXITED,
  TRANSPORT_CODES.HOST_ERROR, TRANSPORT_CODES.HOST_DISCONNECTED]);

let seq = 0;
/** A new entry id: time-ordered, unique within the worker. */
export function newId(now = Date.now()) {
  seq = (seq + 1) % 1e6;
  return `${now.toString(36)}-${seq.toString(36).padStart(4, '0')}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
}

/**
 * The decision on a call that reached the host.
 * @param {{answer: 'allow'|'deny'|null, remember?: string, auto?: object}|null} approval
 *   the question the person was asked, if any, and its answer
 * @param {object} reply the host's reply
 */
export function decide(approval, reply) {
  if (approval?.auto?.grant) return approval.answer === 'allow' ? DECISIONS.GRANTED : DECISIONS.BLOCKED;
  if (approval) {
    if (approval.answer === 'allow') return approval.auto ? DECISIONS.REMEMBERED : DECISIONS.ALLOWED;
    if (approval.answer === 'deny') return DECISIONS.DENIED;
    if (reply?.details?.reason === 'timeout') return DECISIONS.TIMED_OUT;
    return reply?.details?.reason === 'denied' ? DECISIONS.DENIED : DECISIONS.UNANSWERED;
  }
  if (reply?.ok) return DECISIONS.GRANTED;
  if (reply?.code === CODES.FORBIDDEN) return DECISIONS.BLOCKED;
  if (AFTER_THE_CALL.has(reply?.code)) return DECISIONS.GRANTED;
  return DECISIONS.REFUSED;
}

/** Bytes of a value's JSON (0 for nothing). */
function jsonBytes(v) {
  return v === undefined ? 0 : utf8Length(JSON.stringify(v) ?? '');
}

/**
 * The entry of a call that reached the host.
 * @param {object} o
 * @param {string} o.origin
 * @param {{capability: string, arguments?: object}} o.call
 * @param {number} o.started ms since the epoch
 * @param {number} o.ended
 * @param {object} o.reply the host's reply (or the transport's stand-in)
 * @param {object|null} [o.approval] {answer, remember, auto: {at, entry}, error}
 * @param {(v: any) => any} [o.summarise] turns a result into what is kept of it (binary payloads counted)
 */
export function callEntry({ origin, call, started, ended, reply, approval = null, summarise = (v) => v, id = newId(ended) }) {
  const decision = decide(approval, reply);
  const e = {
    id, kind: 'call', at: started, origin, capability: String(call.capability),
    args: redactJSON(call.arguments ?? {}), argsBytes: jsonBytes(call.arguments ?? {}),
    decision, code: reply?.ok ? OK : String(reply?.code || TRANSPORT_CODES.HOST_ERROR), ms: Math.max(0, ended - started),
  };
  if (approval && !approval.auto?.grant) e.asked = true;
  if (approval?.auto?.grant) e.byKindGrant = String(approval.auto.grant);
  if (decision === DECISIONS.ALLOWED) e.remember = approval.remember || REMEMBER.ONCE;
  if (decision === DECISIONS.REMEMBERED) {
    e.rememberedFrom = { at: approval.auto.at, entry: approval.auto.entry };
    if (approval.auto.kind) Object.assign(e.rememberedFrom, { kind: String(approval.auto.kind), scope: String(approval.auto.scope || '') });
  }
  if (approval?.error) e.rememberError = truncate(redactFreeText(approval.error), MAX_TEXT_BYTES);
  if (reply?.ok) {
    e.bytes = jsonBytes(reply.result);
    e.result = redactJSON(summarise(reply.result));
  } else {
    e.bytes = jsonBytes(reply);
    e.message = truncate(redactFreeText(String(reply?.message ?? '')), MAX_TEXT_BYTES);
    if (typeof reply?.details?.reason === 'string') e.reason = reply.details.reason.slice(0, 100);
  }
  return e;
}

/**
 * Whether a reply the gate refused was a finished attempt at a call (and so
 * belongs in the log): it names "capability" and is a whole object or a
 * closed code fence. A reply cut off while it streamed is neither, so it
 * does not count (its complete version is judged when it arrives).
 */
export function looksLikeCall(text) {
  if (typeof text !== 'string' || !/"capability"\s*:/.test(text)) return false;
  const t = text.trim();
  if (/^(`{3,}|~{3,})/.test(t)) return /(`{3,}|~{3,})$/.test(t) && t.length > 6;
  return t.startsWith('{') && t.endsWith('}');
}

/** The entry of a reply that looked like a call but is not one (the gate's reason). */
export function notACallEntry({ origin, text, reason, at = Date.now(), id = newId(at) }) {
  return {
    id, kind: 'call', at, origin, capability: capabilityIn(text), decision: DECISIONS.NOT_A_CALL,
    reason: String(reason).slice(0, 200), args: redactRaw(String(text)), argsBytes: utf8Length(String(text)),
  };
}

/** The capability a text names, best effort, for a reply that is not a call ("" when none). */
function capabilityIn(text) {
  const m = /"capability"\s*:\s*"((?:[^"\\]|\\.){1,200})"/.exec(String(text));
  if (!m) return '';
  try {
    return JSON.parse(`"${m[1]}"`);
  } catch {
    return '';
  }
}

/** The entry of a call the bridge's safety limits stopped before it ran. */
export function stoppedEntry({ origin, call, reason, at = Date.now(), id = newId(at) }) {
  return {
    id, kind: 'call', at, origin, capability: String(call.capability), decision: DECISIONS.STOPPED,
    reason: String(reason).slice(0, 200), args: redactJSON(call.arguments ?? {}), argsBytes: jsonBytes(call.arguments ?? {}),
  };
}

/**
 * The entry of one browser-agent task: its text, how many steps it took,
 * how it ended, and the conversation it belongs to; known: secrets masked
 * by value in its texts (the agent's API key, in any form). A task that asked you a
 * question and then went on has one entry, kept under `key` and replaced.
 */
export function taskEntry({ conversation, seq: taskSeq, task, steps, outcome, text, url, known = [], at = Date.now(), id = newId(at) }) {
  return {
    id, kind: 'task', at, origin: originOf(url),
    key: `${String(conversation).slice(0, 100)}:${Number.isInteger(taskSeq) ? taskSeq : ''}`,
    conversation: String(conversation ?? '').slice(0, 100),
    task: truncate(redactKnowing(String(task ?? ''), known), MAX_TEXT_BYTES),
    steps: Number.isInteger(steps) && steps >= 0 ? steps : 0,
    outcome: String(outcome ?? '').slice(0, 40),
    text: truncate(redactKnowing(String(text ?? ''), known), MAX_TEXT_BYTES),
  };
}

/** The http(s) origin of a URL, "" for anything else. */
function originOf(url) {
  try {
    const u = new URL(String(url ?? ''));
    return /^https?:$/.test(u.protocol) ? u.origin : '';
  } catch {
    return '';
  }
}

/** The outcome filter an entry falls under first (its colour in the view). */
export function outcomeOf(e) {
  if (e.kind === 'task') return 'task';
  switch (e.decision) {
    case DECISIONS.NOT_A_CALL: return 'not-a-call';
    case DECISIONS.DENIED: case DECISIONS.TIMED_OUT: case DECISIONS.UNANSWERED: return 'denied';
    case DECISIONS.BLOCKED: case DECISIONS.STOPPED: case DECISIONS.REFUSED: return 'blocked';
    default: return e.code === OK ? 'ran' : 'failed';
  }
}

/** What the index keeps of an entry: enough to filter and order without reading the entry. */
export function indexItem(e) {
  const item = { id: e.id, at: e.at, origin: e.origin, outcome: outcomeOf(e) };
  if (e.kind === 'task') item.key = e.key;
  else item.capability = e.capability;
  if (e.asked) item.asked = true;
  return item;
}

/**
 * The index after adding entries (oldest first) and applying the bound: an
 * entry with the key of an older one (a task updated) replaces it.
 * @returns {{index: object[], dropped: string[]}} the new index, oldest first, and the ids no longer in it
 */
export function addToIndex(index, entries, now, limits = LIMITS) {
  const keys = new Set(entries.map((e) => e.key).filter(Boolean));
  const dropped = [];
  const kept = [];
  for (const item of Array.isArray(index) ? index : []) {
    if (item.key && keys.has(item.key)) dropped.push(item.id);
    else kept.push(item);
  }
  const all = [...kept, ...entries.map(indexItem)];
  const bounded = bound(all, now, limits);
  const keep = new Set(bounded.index.map((i) => i.id));
  for (const i of all) if (!keep.has(i.id)) dropped.push(i.id);
  return { index: bounded.index, dropped: [...new Set(dropped)].filter((id) => !keep.has(id)) };
}

/** The index within the bound: entries of the last maxAgeMs, then the newest maxEntries of them. */
export function bound(index, now, limits = LIMITS) {
  const fresh = index.filter((i) => Number.isFinite(i.at) && now - i.at <= limits.maxAgeMs);
  const keep = fresh.slice(-limits.maxEntries);
  const ids = new Set(keep.map((i) => i.id));
  return { index: keep, dropped: index.filter((i) => !ids.has(i.id)).map((i) => i.id) };
}

/**
 * Whether an index item passes the view's filter.
 * @param {{origin?: string, capability?: string, outcome?: string}} filter empty fields pass everything
 */
export function matches(item, { origin, capability, outcome } = {}) {
  if (origin && item.origin !== origin) return false;
  if (capability && item.capability !== capability) return false;
  if (outcome === 'asked') return !!item.asked;
  if (outcome && item.outcome !== outcome) return false;
  return true;
}

/** The sites and tools that appear in the index, sorted: the filter's choices. */
export function facets(index) {
  const sites = new Set();
  const tools = new Set();
  for (const i of index) {
    if (i.origin) sites.add(i.origin);
    if (i.capability) tools.add(i.capability);
  }
  return { sites: [...sites].sort(), tools: [...tools].sort() };
}

/** Entries as JSON lines, one entry a line, in the order given. */
export function jsonLines(entries) {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

const REMEMBER_TEXT = {
  once: 'Allowed once by you',
  session: 'Allowed by you for this session: calls of this tool on this site run without asking until you stop the site or restart the browser',
  always: 'Always allowed on this site by you: saved in What this site may run',
};

/** What a session choice of the browser agent means: it has no site to stop. */
const AGENT_SESSION_TEXT = 'Allowed by you for this session: the browser agent runs this tool without asking until the browser restarts';

/** What an allow the person remembered for a kind of the agent's desktop calls means. */
function agentKindText(kind, scope) {
  const words = KIND_WORDS[kind]?.name.toLowerCase() || 'this kind of call';
  return scope === 'task'
    ? `Allowed by you for this task: ${words} on the desktop runs without asking until the task ends or leaves the desktop`
    : `Allowed by you for this session: ${words} on the desktop runs without asking until the browser restarts or you forget it in Settings → Desktop`;
}

/**
 * The sentence that says how an entry was decided and by whom.
 * @param {object} e the entry
 * @param {{agent?: boolean}} [opts] agent: the call was the browser agent's own (the extension's origin)
 */
export function decisionText(e, { agent = false } = {}) {
  if (e.kind === 'task') return `Agent task: ${e.outcome.replace('_', ' ')} after ${e.steps} step${e.steps === 1 ? '' : 's'}`;
  switch (e.decision) {
    case DECISIONS.GRANTED:
      if (e.byKindGrant) return `Granted: your grant for ${KIND_WORDS[e.byKindGrant]?.name.toLowerCase() || e.byKindGrant} lets the agent run it without asking`;
      return 'Granted: this site may run it without asking';
    case DECISIONS.ALLOWED:
      if (agent && e.remember === REMEMBER.SESSION) return e.desktopKind ? agentKindText(e.desktopKind, KIND_SCOPE[e.desktopKind]) : AGENT_SESSION_TEXT;
      return REMEMBER_TEXT[e.remember] || REMEMBER_TEXT.once;
    case DECISIONS.REMEMBERED: {
      const at = e.rememberedFrom?.at ? ` of ${new Date(e.rememberedFrom.at).toLocaleTimeString()}` : '';
      if (e.rememberedFrom?.kind) return `Allowed without asking: your choice${at} for ${KIND_WORDS[e.rememberedFrom.kind]?.name.toLowerCase() || e.rememberedFrom.kind} ${e.rememberedFrom.scope === 'task' ? 'in this task' : 'for this session'}`;
      return `Allowed without asking: your choice for this session${at}`;
    }
    case DECISIONS.DENIED: return 'Denied by you';
    case DECISIONS.TIMED_OUT: return 'Denied: no answer in time';
    case DECISIONS.BLOCKED:
      if (e.byKindGrant) return `Blocked: your grant for ${KIND_WORDS[e.byKindGrant]?.name.toLowerCase() || e.byKindGrant} blocks it`;
      return e.reason === 'no-approver' ? 'Blocked: it needs your approval and could not ask' : 'Blocked: this site may not run it';
    case DECISIONS.STOPPED: return `Stopped by the bridge: ${e.reason}`;
    case DECISIONS.NOT_A_CALL: return `Not a call: ${e.reason}`;
    case DECISIONS.UNANSWERED: return 'Not answered: the call ended while it waited for you';
    case DECISIONS.REFUSED: return HOST_UNREACHABLE.has(e.code) ? 'Not run: the host could not be reached' : 'Not run: the host refused it';
    default: return String(e.decision);
  }
}

/** The short label of an entry's outcome, for its pill. */
export function outcomeLabel(e) {
  if (e.kind === 'task') return e.outcome === 'finished' ? 'finished' : e.outcome.replace('_', ' ');
  switch (e.decision) {
    case DECISIONS.ALLOWED:
      if (e.remember === REMEMBER.SESSION) return KIND_SCOPE[e.desktopKind] === 'task' ? 'allowed · task' : 'allowed · session';
      return e.remember === REMEMBER.ALWAYS ? 'allowed · always' : 'allowed once';
    case DECISIONS.REMEMBERED: return e.rememberedFrom?.scope === 'task' ? 'allowed · task' : 'allowed · session';
    case DECISIONS.GRANTED: return e.code === OK ? 'ran' : 'failed';
    case DECISIONS.TIMED_OUT: case DECISIONS.UNANSWERED: return 'no answer';
    case DECISIONS.REFUSED: return 'not run';
    case DECISIONS.NOT_A_CALL: return 'not a call';
    default: return e.decision;
  }
}

/**
 * A call's arguments on one line, for its collapsed entry, so a list of calls
 * to one tool (the agent's desktop.computer) says what each asked without
 * opening it: `action: left_click, coordinate: [640,360]`. Reads the entry's
 * redacted arguments (JSON text, keys sorted); a plain word stays unquoted,
 * other values are JSON. "" for a task, for a reply that was not a call (its
 * text shows when opened) and for arguments that are not a non-empty object.
 * @param {object} e an entry
 * @param {number} [max] characters kept, the last one "…" when cut
 */
export function argsPreview(e, max = 160) {
  if (e.kind !== 'call' || e.decision === DECISIONS.NOT_A_CALL) return '';
  let v;
  try {
    v = JSON.parse(e.args ?? '');
  } catch {
    return '';
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return '';
  const show = (x) => (typeof x === 'string' && /^[\w./:@+-]{1,80}$/.test(x) ? x : JSON.stringify(x));
  const text = Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join(', ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "1.2 KB", "340 B". */
export function sizeText(bytes) {
  if (!Number.isFinite(bytes)) return '';
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** "840 ms", "12.3 s". */
export function durationText(ms) {
  if (!Number.isFinite(ms)) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Puts the browser agent's own calls (its desktop actions, which carry their
 * task's key) under their task's entry, oldest first, when that task is in
 * the list; the others stay where they are.
 * @param {object[]} entries newest first, as the log lists them
 * @returns {object[]} the same entries, a task's calls in its `calls`
 */
export function nestTaskCalls(entries) {
  const tasks = new Map(entries.filter((e) => e.kind === 'task' && e.key).map((e) => [e.key, { ...e, calls: [] }]));
  const out = [];
  for (const e of entries) {
    if (e.kind === 'task' && tasks.has(e.key)) out.push(tasks.get(e.key));
    else if (e.kind === 'call' && e.task && tasks.has(e.task)) tasks.get(e.task).calls.unshift(e);
    else out.push(e);
  }
  return out;
}
