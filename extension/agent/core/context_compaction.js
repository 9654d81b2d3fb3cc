// Compaction: folding the records a summary does not cover yet into a new
// summary record, so that requests stay small. It runs when the prompt size
// (the server's reported usage or, when it reports none, the estimate) passes
// the threshold, 32,000 tokens by default: before a new task, and within a
// task before the request that would pass it, then keeping that task's
// latest rounds. The compaction request is one call at temperature 0; an
// empty reply leaves the context as it was.
//
// Pure module: the model call and the store's append are passed in.

import { CONTEXT_CODES, ContextError } from './context_error.js';
import { unsummarised } from './context_history.js';

/** Prompt tokens of the previous request above which the context is compacted. */
export const COMPACTION_THRESHOLD = 32000;
/** Longest text of one record inside a compaction request. */
export const COMPACTION_RECORD_CHARS = 4000;
/** Rounds of the running task a compaction inside it leaves unsummarised. */
export const KEEP_ROUNDS = 4;

/**
 * The prompt tokens of the latest request recorded (usage on action records,
 * reported or estimated), after the latest summary.
 */
export function lastPromptTokens(records) {
  return lastUsage(records)?.promptTokens ?? 0;
}

/** {promptTokens, estimated} of the latest request recorded after the latest summary, or null. */
export function lastUsage(records) {
  const { summary } = unsummarised(records);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (summary && r.seq <= summary.seq) break;
    const p = r.usage?.prompt_tokens ?? r.usage?.promptTokens;
    if (typeof p === 'number') return { promptTokens: p, estimated: Boolean(r.usage.estimated) };
  }
  return null;
}

const COMPACTION_SYSTEM = `You maintain the memory of a browser automation agent that works on web pages through screenshots.
Fold the previous summary and the new conversation records into one new summary that lets the agent continue without the records.
Keep: every task the user gave and its status, the user's answers and preferences, facts and values found (names, numbers, URLs, file names), what was done and what failed, the current state of the page or task, and open questions.
Drop: step-by-step clicking detail that no longer matters. Write plain text, at most about 400 words, no action tags.`;

function recordLine(r) {
  let text = String(r.text ?? '');
  if (text.length > COMPACTION_RECORD_CHARS) text = `${text.slice(0, COMPACTION_RECORD_CHARS)}… (truncated)`;
  const step = r.step !== undefined ? ` step ${r.step}` : '';
  const extra = r.kind === 'outcome' ? ` (${r.outcome})` : '';
  const url = r.observation?.url ? ` [${r.observation.url}]` : '';
  return `#${r.seq} ${r.kind}${step}${extra}${url}: ${text}`;
}

/**
 * Decides whether the context must be compacted and, if so, returns the
 * compaction request: {messages, temperature: 0, from, upto, promptTokens}.
 * promptTokens defaults to the previous request's (reported or estimated);
 * null when it is at or below the threshold or there is nothing to fold.
 * keepRounds > 0 (inside a running task) leaves that task's latest rounds out
 * of the summary.
 */
export function planCompaction(records, { threshold = COMPACTION_THRESHOLD, force = false, promptTokens = lastPromptTokens(records), keepRounds = 0 } = {}) {
  if (!force && promptTokens <= threshold) return null;
  const { summary } = unsummarised(records);
  let { records: rest } = unsummarised(records);
  if (keepRounds > 0) {
    // Inside a running task: its latest rounds (and what follows them) stay as they are.
    const taskAt = rest.findLastIndex((r) => r.kind === 'task');
    const steps = [...new Set(rest.slice(taskAt + 1).filter((r) => r.kind === 'action').map((r) => r.step))];
    if (steps.length <= keepRounds) {
      if (taskAt <= 0) return null;
      rest = rest.slice(0, taskAt + 1);
    } else {
      const firstKept = steps[steps.length - keepRounds];
      rest = rest.slice(0, rest.findIndex((r, i) => i > taskAt && r.step === firstKept && ['analysis', 'action', 'result'].includes(r.kind)));
    }
  }
  if (!rest.length) return null;
  const body = [
    summary ? `Previous summary:\n${summary.text}` : 'Previous summary: (none)',
    `New records (${rest.length}):\n${rest.map(recordLine).join('\n')}`,
    'Write the new summary now.',
  ].join('\n\n');
  return {
    messages: [{ role: 'system', content: COMPACTION_SYSTEM }, { role: 'user', content: body }],
    temperature: 0,
    from: rest[0].seq,
    upto: rest[rest.length - 1].seq,
    promptTokens,
  };
}

/**
 * Turns the model's compaction reply into the summary record to append.
 * Throws ContextError on an empty reply (the old context stays as it was).
 */
export function applyCompaction(plan, replyText) {
  const text = String(replyText || '').replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  if (!text) throw new ContextError(CONTEXT_CODES.EMPTY_SUMMARY, 'The model returned an empty summary; the conversation was not compacted.');
  return { kind: 'summary', text, from: plan.from, upto: plan.upto, promptTokens: plan.promptTokens };
}

/**
 * Runs compaction when planCompaction says so (before a task, or inside one
 * with keepRounds and the estimated size of the next request as promptTokens):
 * asks the model (temperature 0) and appends the summary record.
 * onPlan() is called once a compaction is planned, before its request.
 * @param {{records: object[], complete: (req: {messages, temperature}) => Promise<{content: string, usage?: object}>,
 *   append: (record: object) => Promise<object>|object, threshold?: number, promptTokens?: number, keepRounds?: number,
 *   onPlan?: (plan: object) => void}} o
 * @returns {Promise<object|null>} the summary record appended, or null when none was needed
 */
export async function compactIfNeeded({ records, complete, append, threshold = COMPACTION_THRESHOLD, promptTokens, keepRounds = 0, onPlan }) {
  const plan = planCompaction(records, { threshold, keepRounds, ...(promptTokens !== undefined ? { promptTokens } : {}) });
  if (!plan) return null;
  onPlan?.(plan);
  const reply = await complete({ messages: plan.messages, temperature: plan.temperature });
  const summary = applyCompaction(plan, reply.content);
  await append(summary);
  return summary;
}
