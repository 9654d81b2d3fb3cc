// Compaction in the Side Panel: before a task, when the previous request's
// prompt passed the threshold, and inside a task, before a request that
// would pass it. The folding is core/context_compaction.js; this runs it with the
// task's connection and says so in the status line and the log.

import { compactIfNeeded, KEEP_ROUNDS, lastPromptTokens, lastUsage } from '../core/context_compaction.js';
import { estimateTokens } from '../core/token_estimate.js';
import { panel } from './sidepanel_state.js';
import { modelFor } from './sidepanel_models.js';
import { addEntry, setStatus } from './sidepanel_log.js';

let nextCompactionStep = 0; // no second compaction inside a task before this step

/** A new task may compact from its first step. */
export function resetCompaction() {
  nextCompactionStep = 0;
}

/** A model request for compaction with the task's connection settings. */
function compactionRequest(config, signal, onRetry) {
  return (req) => modelFor(config.settings).complete({
    endpoint: config.endpoint, apiKey: config.apiKey, model: config.settings.model,
    messages: req.messages, temperature: req.temperature, loopback: config.loopback, origin: config.origin,
    timeoutMs: config.settings.requestTimeoutMs, retryBaseMs: config.settings.retryBaseMs, retryMaxMs: config.settings.retryMaxMs,
  }, { signal, onRetry });
}

/**
 * Before a new task: when the previous request's prompt usage exceeded the
 * threshold, the model (temperature 0) folds the unsummarised records into a
 * summary. Returns false when the user stopped it.
 */
export async function compactBeforeTask(conversationId, records, config) {
  const used = lastPromptTokens(records);
  const threshold = config.settings.compactAtTokens;
  if (used <= threshold) return true;
  const estimated = lastUsage(records)?.estimated ? ' (estimated)' : '';
  const ac = new AbortController();
  panel.compacting = ac;
  setStatus('running', `Compacting the conversation (the last request used ${used} prompt tokens${estimated})…`);
  try {
    const summary = await compactIfNeeded({
      records,
      threshold,
      append: (r) => panel.store.append(conversationId, r),
      complete: compactionRequest(config, ac.signal, (i) => setStatus('running', `Compacting: ${i.reason}; retrying…`)),
    });
    if (summary) addEntry('info compacted', `Compacted the earlier records into a summary (the last request used ${used} prompt tokens${estimated}).`);
    return true;
  } catch (err) {
    if (ac.signal.aborted) return false;
    addEntry('error', `Could not compact the conversation (${err?.message || err}); continuing with the latest rounds only.`);
    return true;
  } finally {
    panel.compacting = null;
  }
}

/**
 * Inside a task, before a request: when the request would pass the
 * threshold (the server's last reported prompt size, else the estimate of
 * the request itself), the unsummarised records but the task's latest rounds
 * are folded into a summary first. b is the task's context builder; persist
 * stores a record in the conversation. A failure leaves the context as it was.
 */
export async function compactWithinTask(b, ctx, persist) {
  const config = panel.session?.config;
  if (!config || ctx.step < nextCompactionStep) return;
  const threshold = config.settings.compactAtTokens;
  const last = lastUsage(b.records);
  const estimated = !(last && !last.estimated);
  const tokens = estimated ? estimateTokens(b.buildMessages(ctx)) : last.promptTokens;
  if (tokens <= threshold) return;
  setStatus('running', `Step ${ctx.step}: compacting the context (${tokens} prompt tokens${estimated ? ', estimated' : ''})…`);
  try {
    const summary = await compactIfNeeded({
      records: b.records,
      threshold,
      promptTokens: tokens,
      keepRounds: KEEP_ROUNDS,
      append: (r) => { const mirrored = b.onRecord(r); persist(r); return mirrored; },
      complete: compactionRequest(config, ctx.signal, (i) => setStatus('running', `Compacting: ${i.reason}; retrying…`)),
    });
    if (summary) {
      nextCompactionStep = ctx.step + KEEP_ROUNDS;
      const li = addEntry('info compacted', `Compacted the earlier records into a summary inside this task (the next request would have been ${tokens} prompt tokens${estimated ? ', estimated' : ''}).`);
      li.dataset.within = 'task';
    }
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    addEntry('error', `Could not compact the context (${err?.message || err}); continuing with the latest rounds only.`);
    nextCompactionStep = ctx.step + KEEP_ROUNDS;
  }
}
