// The step and token meter of one task: steps executed, requests sent and
// their usage figures (OpenAI's prompt, completion and total tokens), rebuilt
// from stored records when a conversation is reopened, and the one line the
// Side Panel shows, which says when its tokens are estimated (the server
// reported no usage).
//
// Pure module.

/**
 * A per-task meter of steps and tokens (OpenAI usage figures).
 * @param {{maxSteps?: number}} [opts]
 */
export function createMeter({ maxSteps = 0 } = {}) {
  const m = { steps: 0, maxSteps, requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, lastPromptTokens: 0, estimated: false };
  return {
    /** Counts one executed step. */
    step() { m.steps += 1; },
    /**
     * Adds one request's usage ({prompt_tokens, completion_tokens,
     * total_tokens, estimated?}); null counts the request only.
     */
    usage(u) {
      m.requests += 1;
      if (!u) return;
      if (u.estimated) m.estimated = true;
      const p = Number(u.prompt_tokens ?? u.promptTokens) || 0;
      const c = Number(u.completion_tokens ?? u.completionTokens) || 0;
      m.promptTokens += p;
      m.completionTokens += c;
      m.totalTokens += Number(u.total_tokens ?? u.totalTokens) || p + c;
      m.lastPromptTokens = p;
    },
    /** A copy of the figures. */
    snapshot() { return { ...m }; },
  };
}

/** Rebuilds a task's meter from stored records (the records after its task record). */
export function meterFromRecords(records, { maxSteps = 0 } = {}) {
  const meter = createMeter({ maxSteps });
  let start = 0;
  for (const r of records) if (r.kind === 'task') start = r.seq;
  for (const r of records) {
    if (r.seq <= start) continue;
    if (r.kind === 'action') {
      meter.usage(r.usage || null);
      meter.step();
    }
  }
  return meter;
}

function shortCount(n) {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * One line for the UI: "Step 3/100 · 12.3k tokens (last prompt 4.1k)", or
 * "Step 3/100 · ≈12.3k tokens, estimated (last prompt ≈4.1k)" when any figure
 * is an estimate (the server reported no usage).
 */
export function formatMeter(s) {
  const steps = s.maxSteps ? `Step ${s.steps}/${s.maxSteps}` : `Step ${s.steps}`;
  if (s.estimated) return `${steps} · ≈${shortCount(s.totalTokens)} tokens, estimated (last prompt ≈${shortCount(s.lastPromptTokens)})`;
  return `${steps} · ${shortCount(s.totalTokens)} tokens (last prompt ${shortCount(s.lastPromptTokens)})`;
}
