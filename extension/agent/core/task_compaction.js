// Compaction as a task runs it: before a task, when the previous request's
// prompt passed the threshold, and inside a task, before a request that would
// pass it. The folding itself is context_compaction.js; this runs it with the
// task's connection and reports each phase as an event
// ({type: 'compaction', where: 'before'|'within', phase: 'start'|'retry'|'done'|'failed', ...}),
// which the Side Panel renders. Pure: the model client and the store's append
// are passed in.

import { compactIfNeeded, KEEP_ROUNDS, lastPromptTokens, lastUsage } from './context_compaction.js';
import { estimateTokens } from './token_estimate.js';

/** A compaction request with the task's connection settings (config: the validated run config). */
export function compactionRequest(model, config, signal, onRetry) {
  return (req) => model.complete({
    endpoint: config.endpoint, apiKey: config.apiKey, model: config.settings.model,
    messages: req.messages, temperature: req.temperature, loopback: config.loopback, origin: config.origin,
    timeoutMs: config.settings.requestTimeoutMs, retryBaseMs: config.settings.retryBaseMs, retryMaxMs: config.settings.retryMaxMs,
  }, { signal, onRetry });
}

/**
 * Before a new task: when the previous request's prompt usage exceeded the
 * threshold, the model (temperature 0) folds the unsummarised records into a
 * summary. Resolves false when signal aborted it (the user stopped), true
 * otherwise (a failure leaves the context as it was, and says so).
 * @param {{records: object[], config: object, model: object, append: (r: object) => Promise<any>,
 *   signal: AbortSignal, emit: (e: object) => void}} o
 */
export async function compactBeforeTask({ records, config, model, append, signal, emit }) {
  const tokens = lastPromptTokens(records);
  const threshold = config.settings.compactAtTokens;
  if (tokens <= threshold) return true;
  const estimated = Boolean(lastUsage(records)?.estimated);
  const base = { type: 'compaction', where: 'before', tokens, estimated };
  try {
    const summary = await compactIfNeeded({
      records, threshold, append, onPlan: () => emit({ ...base, phase: 'start' }),
      complete: compactionRequest(model, config, signal, (i) => emit({ ...base, phase: 'retry', reason: i.reason })),
    });
    if (summary) emit({ ...base, phase: 'done' });
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    emit({ ...base, phase: 'failed', error: String(err?.message || err) });
    return true;
  }
}

/**
 * The compaction inside a running task: before each request (the session's
 * beforeRequest hook), when the request would pass the threshold (the
 * server's last reported prompt size, else the estimate of the request
 * itself), the unsummarised records but the task's latest rounds are folded
 * into a summary first. A second one waits KEEP_ROUNDS steps. A failure
 * leaves the context as it was; a Stop rethrows. connection() gives the
 * task's current {config, model} (an answer after a reopen brings new ones).
 * @param {{builder: object, connection: () => {config: object, model: object}, persist: (r: object) => void, emit: (e: object) => void}} o
 * @returns {(ctx: object) => Promise<void>}
 */
export function createWithinTaskCompaction({ builder, connection, persist, emit }) {
  let nextStep = 0;
  return async (ctx) => {
    const { config, model } = connection();
    if (!config || ctx.step < nextStep) return;
    const threshold = config.settings.compactAtTokens;
    const last = lastUsage(builder.records);
    const estimated = !(last && !last.estimated);
    const tokens = estimated ? estimateTokens(builder.buildMessages(ctx)) : last.promptTokens;
    if (tokens <= threshold) return;
    const base = { type: 'compaction', where: 'within', step: ctx.step, tokens, estimated };
    try {
      const summary = await compactIfNeeded({
        records: builder.records, threshold, promptTokens: tokens, keepRounds: KEEP_ROUNDS, onPlan: () => emit({ ...base, phase: 'start' }),
        append: (r) => { const mirrored = builder.onRecord(r); persist(r); return mirrored; },
        complete: compactionRequest(model, config, ctx.signal, (i) => emit({ ...base, phase: 'retry', reason: i.reason })),
      });
      if (summary) {
        nextStep = ctx.step + KEEP_ROUNDS;
        emit({ ...base, phase: 'done' });
      }
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      emit({ ...base, phase: 'failed', error: String(err?.message || err) });
      nextStep = ctx.step + KEEP_ROUNDS;
    }
  };
}
