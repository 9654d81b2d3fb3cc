// Bounded context for the browser agent's model requests.
//
// A request never replays a whole conversation. It holds: the system prompt,
// the compacted summary of older records, at most the latest 30 rounds of
// text history (a round = one step: the model's analysis and action, and the
// action's result), at most three observation screenshots (the two previous
// steps' and the current one, all held in memory only) and the user's
// reference images (up to four a message, 10 MiB each, 20 MiB together).
// Rounds left out keep their task's text, the user's answers and outcomes.
// The prompt size is the server's reported usage or, when it reports none, an
// estimate (text length and image sizes). Above the threshold (32,000 tokens
// by default) a compaction request (temperature 0) folds the unsummarised
// records into a new summary: before a new task, and within a task before the
// request that would pass it, keeping that task's latest rounds. A meter counts
// steps and tokens per task and says when its tokens are estimated.
//
// Pure module: records come from conversation_store.js, nothing is fetched.

import { CodedError } from '../shared/coded_error.js';
import { fillTemplate, formatDate } from './prompt.js';

/** Most rounds of text history replayed. */
export const MAX_ROUNDS = 30;
/** Most observation screenshots in one request (two previous + current). */
export const MAX_SCREENSHOTS = 3;
/** Prompt tokens of the previous request above which the context is compacted. */
export const COMPACTION_THRESHOLD = 32000;
/** Longest text of one record inside a compaction request. */
export const COMPACTION_RECORD_CHARS = 4000;
/** Rounds of the running task a compaction inside it leaves unsummarised. */
export const KEEP_ROUNDS = 4;
/** Characters counted as one token by the estimate. */
export const CHARS_PER_TOKEN = 4;
/** Side of the square image patch one token stands for (Qwen2.5-VL, UI-Venus' base: 28 px). */
export const IMAGE_PATCH_PX = 28;
/** Tokens counted for an image whose size cannot be read. */
export const IMAGE_FALLBACK_TOKENS = 1200;

const MiB = 1024 * 1024;
/** User reference image limits. */
export const IMAGE_LIMITS = Object.freeze({
  perMessage: 4,
  eachBytes: 10 * MiB,
  totalBytes: 20 * MiB,
  types: Object.freeze(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
});

/** Stable codes of ContextError. */
export const CONTEXT_CODES = Object.freeze({
  TOO_MANY_IMAGES: 'TOO_MANY_IMAGES',
  IMAGE_TOO_LARGE: 'IMAGE_TOO_LARGE',
  IMAGES_TOO_LARGE: 'IMAGES_TOO_LARGE',
  NOT_AN_IMAGE: 'NOT_AN_IMAGE',
  EMPTY_SUMMARY: 'EMPTY_SUMMARY',
});

/** An error with a stable .code and a message meant for the user. */
export class ContextError extends CodedError {}

/** Formats a byte count for people ("12.3 MiB"). */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < MiB) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / MiB).toFixed(1)} MiB`;
}

function splitDataUrl(s) {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/is.exec(s || '');
  return m ? { mime: m[1].toLowerCase(), base64: m[3] } : null;
}

function base64Bytes(b64) {
  const clean = String(b64).replace(/\s+/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** Pixel size {width, height} of a base64 PNG, JPEG, GIF or WebP, or null. */
export function imageSize(base64) {
  let bytes;
  try {
    const head = String(base64).replace(/\s+/g, '').slice(0, 65536).replace(/=+$/, '');
    const bin = atob(head.slice(0, head.length - (head.length % 4)));
    bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
  const u16 = (i) => (bytes[i] << 8) | bytes[i + 1];
  const u32 = (i) => ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes.length >= 24) return { width: u32(16), height: u32(20) };
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes.length >= 10) return { width: bytes[6] | (bytes[7] << 8), height: bytes[8] | (bytes[9] << 8) };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length && bytes[i] === 0xff) {
      const marker = bytes[i + 1];
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { width: u16(i + 7), height: u16(i + 5) };
      i += 2 + u16(i + 2);
    }
    return null;
  }
  if (bytes[0] === 0x52 && bytes[8] === 0x57 && bytes.length >= 30) {
    const kind = String.fromCharCode(...bytes.slice(12, 16));
    if (kind === 'VP8X') return { width: 1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16)), height: 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16)) };
    if (kind === 'VP8 ') return { width: (bytes[26] | (bytes[27] << 8)) & 0x3fff, height: (bytes[28] | (bytes[29] << 8)) & 0x3fff };
    if (kind === 'VP8L') {
      const b = bytes.slice(21, 25);
      return { width: 1 + (((b[1] & 0x3f) << 8) | b[0]), height: 1 + (((b[3] & 0xf) << 10) | (b[2] << 2) | ((b[1] & 0xc0) >> 6)) };
    }
  }
  return null;
}

/** Tokens an image part costs: one per 28 x 28 px patch, or IMAGE_FALLBACK_TOKENS when its size is unknown. */
export function imageTokens(url) {
  const parsed = splitDataUrl(url);
  const size = parsed ? imageSize(parsed.base64) : null;
  if (!size || !size.width || !size.height) return IMAGE_FALLBACK_TOKENS;
  return Math.ceil(size.width / IMAGE_PATCH_PX) * Math.ceil(size.height / IMAGE_PATCH_PX) + 2;
}

/**
 * Estimated prompt tokens of a message list, for servers that report no
 * usage: one token per CHARS_PER_TOKEN characters of text, each image by its
 * pixel size, and a few tokens per message for the chat format.
 */
export function estimateTokens(messages) {
  let chars = 0;
  let tokens = 0;
  for (const m of messages || []) {
    tokens += 4;
    if (typeof m.content === 'string') chars += m.content.length;
    else for (const p of m.content || []) {
      if (p.type === 'text') chars += String(p.text || '').length;
      else if (p.type === 'image_url') tokens += imageTokens(p.image_url?.url);
    }
  }
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * Checks the reference images of one user message and returns them
 * normalised to {name, mime, size, dataUrl}. Each image is
 * {name, mime?, size?, dataUrl? | data? (base64)}; the size is measured from
 * the data when present. Throws ContextError with a message for the user.
 */
export function validateReferenceImages(images = []) {
  if (images.length > IMAGE_LIMITS.perMessage) {
    throw new ContextError(CONTEXT_CODES.TOO_MANY_IMAGES, `A message can carry at most ${IMAGE_LIMITS.perMessage} images; ${images.length} are attached. Remove ${images.length - IMAGE_LIMITS.perMessage}.`);
  }
  let total = 0;
  const out = images.map((img, i) => {
    const name = img.name || `image ${i + 1}`;
    const parsed = img.dataUrl ? splitDataUrl(img.dataUrl) : null;
    const mime = String(img.mime || parsed?.mime || '').toLowerCase();
    const base64 = parsed ? parsed.base64 : img.data;
    if (!IMAGE_LIMITS.types.includes(mime)) {
      throw new ContextError(CONTEXT_CODES.NOT_AN_IMAGE, `${name} is not a supported image (${mime || 'unknown type'}); attach PNG, JPEG, WebP or GIF.`);
    }
    const size = typeof base64 === 'string' ? base64Bytes(base64) : Number(img.size) || 0;
    if (size > IMAGE_LIMITS.eachBytes) {
      throw new ContextError(CONTEXT_CODES.IMAGE_TOO_LARGE, `${name} is ${formatBytes(size)}; each image may be at most ${formatBytes(IMAGE_LIMITS.eachBytes)}.`);
    }
    total += size;
    return { name, mime, size, dataUrl: img.dataUrl || (typeof base64 === 'string' ? `data:${mime};base64,${base64}` : undefined) };
  });
  if (total > IMAGE_LIMITS.totalBytes) {
    throw new ContextError(CONTEXT_CODES.IMAGES_TOO_LARGE, `The images total ${formatBytes(total)}; together they may be at most ${formatBytes(IMAGE_LIMITS.totalBytes)}.`);
  }
  return out;
}

/**
 * The latest summary record and the records it does not cover, in order.
 * @returns {{summary: object|null, records: object[]}}
 */
export function unsummarised(records) {
  let summary = null;
  for (const r of records) if (r.kind === 'summary' && (!summary || r.seq > summary.seq)) summary = r;
  const upto = summary ? summary.upto : 0;
  return { summary, records: records.filter((r) => r.kind !== 'summary' && r.seq > upto) };
}

/**
 * Groups records into history entries: {kind:'task'|'user'|'outcome'|'note',
 * seq, text, ...} and {kind:'round', task, step, analysis, action, result,
 * observation} for the analysis/action/result records of one step.
 */
export function groupEntries(records) {
  const entries = [];
  let task = 0;
  let round = null;
  for (const r of records) {
    if (r.kind === 'analysis' || r.kind === 'action' || r.kind === 'result') {
      if (!round || round.step !== r.step || round.task !== task) {
        round = { kind: 'round', task, step: r.step, seq: r.seq, analysis: '', action: '', result: '', observation: null };
        entries.push(round);
      }
      round[r.kind] = r.text || '';
      if (r.observation) round.observation = r.observation;
      continue;
    }
    round = null;
    if (r.kind === 'task') task = r.seq;
    entries.push({ ...r });
  }
  return entries;
}

/** Entries kept from the rounds left out of a request: what the user said and how tasks ended. */
const KEPT_KINDS = new Set(['task', 'user', 'outcome']);

/**
 * Selects the text history of a request: the summary, then the entries from
 * the latest MAX_ROUNDS rounds on. Of the older entries, every task text,
 * user answer and outcome is kept (rounds and notes are left out), so a long
 * task never loses what it was asked to do.
 */
export function selectHistory(records, { maxRounds = MAX_ROUNDS } = {}) {
  const { summary, records: rest } = unsummarised(records);
  let entries = groupEntries(rest);
  const rounds = entries.filter((e) => e.kind === 'round');
  let dropped = 0;
  if (rounds.length > maxRounds) {
    dropped = rounds.length - maxRounds;
    const first = entries.indexOf(rounds[dropped]);
    entries = [...entries.slice(0, first).filter((e) => KEPT_KINDS.has(e.kind)), ...entries.slice(first)];
  }
  return { summary, entries, droppedRounds: dropped };
}

function observationText(o) {
  if (!o) return '';
  const v = o.viewport ? `\nViewport: ${o.viewport.width} x ${o.viewport.height} CSS pixels` : '';
  return `URL: ${o.url || '(unknown)'}\nTitle: ${o.title || ''}${v}`;
}

function image(url) {
  return { type: 'image_url', image_url: { url } };
}

function screenshotUrl(s) {
  return s.image.startsWith('data:') ? s.image : `data:${s.mime || 'image/jpeg'};base64,${s.image}`;
}

/** The assistant turn replayed for a round, in the model's own format. */
export function replayReply(round) {
  const think = round.analysis ? `<think>${round.analysis}</think>` : '';
  return `${think}<action>${round.action}</action>`;
}

/**
 * Builds the messages of one action request.
 * @param {object} ctx
 * @param {string} ctx.template system prompt template ({{date}}, {{task}}, {{viewport_width}}, {{viewport_height}})
 * @param {Date} ctx.now
 * @param {object[]} ctx.records the conversation's stored records (the current task included)
 * @param {{image: string, mime?: string, viewport: {width, height}, url?, title?}} ctx.current current observation
 * @param {Array<{step: number, image: string, mime?: string}>} [ctx.previousScreenshots] in memory, oldest first
 * @param {Array} [ctx.referenceImages] the current task's images (validated here)
 * @param {string[]} [ctx.warnings]
 * @param {number} ctx.step the step being requested (1-based)
 * @param {number} ctx.maxSteps
 */
export function buildRequestMessages(ctx) {
  const { summary, entries, droppedRounds } = selectHistory(ctx.records, { maxRounds: ctx.maxRounds ?? MAX_ROUNDS });
  const taskEntry = [...entries].reverse().find((e) => e.kind === 'task');
  const task = ctx.task ?? taskEntry?.text ?? '';
  const refs = validateReferenceImages(ctx.referenceImages || []);
  const system = fillTemplate(ctx.template, {
    date: formatDate(ctx.now),
    task,
    viewport_width: ctx.current.viewport.width,
    viewport_height: ctx.current.viewport.height,
  });
  const messages = [{ role: 'system', content: system }];
  const taskMessage = (text) => (refs.length
    ? { role: 'user', content: [{ type: 'text', text: `${text}\n(${refs.length} reference image${refs.length > 1 ? 's' : ''} attached.)` }, ...refs.map((r) => image(r.dataUrl))] }
    : { role: 'user', content: text });
  if (summary) messages.push({ role: 'user', content: `Summary of the conversation so far (compacted):\n${summary.text}` });
  // A compaction inside the running task folded its task record into the summary: say the task again.
  if (!taskEntry && task) messages.push(taskMessage(`Task: ${task}`));
  if (droppedRounds) messages.push({ role: 'user', content: `(${droppedRounds} earlier step${droppedRounds > 1 ? 's are' : ' is'} left out to keep this request small.)` });
  let pending = null; // the last round, whose result opens the next user turn
  const flush = () => {
    const r = pending;
    pending = null;
    return r ? `Result of step ${r.step}: ${r.result || '(none)'}\n\n` : '';
  };
  // Replies, outcomes and notes after the last round or task are news for
  // this request: they go into its final message (the user's answer to
  // CallUser right before the current observation).
  let tailStart = entries.length;
  while (tailStart > 0 && ['user', 'outcome', 'note'].includes(entries[tailStart - 1].kind)) tailStart--;
  const tail = entries.slice(tailStart);
  // A CallUser is a question inside the task, not its end: the answer continues it.
  const tailText = (e) => (e.kind === 'user' ? answerText(e.text)
    : e.kind === 'outcome' ? outcomeText(e) : `Note: ${e.text}`);
  for (const e of entries.slice(0, tailStart)) {
    switch (e.kind) {
      case 'task': {
        const text = `${flush()}${e === taskEntry ? 'Task' : 'Earlier task'}: ${e.text}`;
        messages.push(e === taskEntry ? taskMessage(text) : { role: 'user', content: text });
        break;
      }
      case 'user':
        messages.push({ role: 'user', content: `${flush()}${answerText(e.text)}` });
        break;
      case 'outcome':
        messages.push({ role: 'user', content: `${flush()}${outcomeText(e)}` });
        break;
      case 'note':
        messages.push({ role: 'user', content: `${flush()}Note: ${e.text}` });
        break;
      case 'round':
        messages.push({ role: 'user', content: `${flush()}Step ${e.step} observation.\n${observationText(e.observation)}`.trimEnd() });
        messages.push({ role: 'assistant', content: replayReply(e) });
        pending = e;
        break;
      default:
        break;
    }
  }
  const lines = [];
  const carried = flush();
  if (carried) lines.push(carried.trimEnd());
  for (const e of tail) lines.push(tailText(e));
  if (tail.at(-1)?.kind === 'user') lines.push('Continue the task with this answer.');
  for (const w of ctx.warnings || []) lines.push(w);
  const previous = (ctx.previousScreenshots || []).filter((s) => s && s.image).slice(-(MAX_SCREENSHOTS - 1));
  if (previous.length) lines.push(`Screenshots of the previous step${previous.length > 1 ? 's' : ''} (${previous.map((s) => `step ${s.step}`).join(', ')}) come first, then the current one.`);
  lines.push(`Step ${ctx.step} of at most ${ctx.maxSteps}. Current observation.\n${observationText(ctx.current)}`);
  lines.push('Reply with <think>…</think> and exactly one <action>…</action>.');
  messages.push({
    role: 'user',
    content: [{ type: 'text', text: lines.join('\n\n') }, ...previous.map((s) => image(screenshotUrl(s))), image(screenshotUrl(ctx.current))],
  });
  return messages;
}

/** How a question the agent asked (CallUser) or the end of a task reads in the history. */
export function outcomeText(e) {
  if (e.outcome === 'call_user') return `You asked the user (CallUser): ${e.text}`;
  return `(That task ended: ${e.outcome}${e.text ? ` — ${e.text}` : ''})`;
}

/** The user's answer to a CallUser question. */
export function answerText(text) {
  return `The user answered your question: ${text}`;
}

/** Counts the observation screenshots and reference images of a message list. */
export function countImages(messages) {
  let n = 0;
  for (const m of messages) if (Array.isArray(m.content)) n += m.content.filter((p) => p.type === 'image_url').length;
  return n;
}

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

/**
 * The usage of one request for the meter and the records: the server's
 * figures when it sent any, else an estimate from the messages sent and the
 * reply, marked estimated: true.
 */
export function usageOrEstimate(usage, messages, replyText = '') {
  if (usage && typeof (usage.prompt_tokens ?? usage.promptTokens) === 'number') return usage;
  const prompt = estimateTokens(messages);
  const completion = Math.ceil(String(replyText).length / CHARS_PER_TOKEN);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, estimated: true };
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

/**
 * Runs compaction when planCompaction says so (before a task, or inside one
 * with keepRounds and the estimated size of the next request as promptTokens):
 * asks the model (temperature 0) and appends the summary record.
 * @param {{records: object[], complete: (req: {messages, temperature}) => Promise<{content: string, usage?: object}>,
 *   append: (record: object) => Promise<object>|object, threshold?: number, promptTokens?: number, keepRounds?: number}} o
 * @returns {Promise<object|null>} the summary record appended, or null when none was needed
 */
export async function compactIfNeeded({ records, complete, append, threshold = COMPACTION_THRESHOLD, promptTokens, keepRounds = 0 }) {
  const plan = planCompaction(records, { threshold, keepRounds, ...(promptTokens !== undefined ? { promptTokens } : {}) });
  if (!plan) return null;
  const reply = await complete({ messages: plan.messages, temperature: plan.temperature });
  const summary = applyCompaction(plan, reply.content);
  await append(summary);
  return summary;
}

/**
 * Connects the context manager to the agent session's hooks. It keeps an
 * in-memory mirror of the active conversation's records (seeded with the
 * stored ones, then fed by the session's onRecord in the same order the
 * store appends them, so sequence numbers agree) and builds each request
 * from it instead of the session's own per-task history.
 * @param {{records?: object[], referenceImages?: object[]}} [o]
 */
export function createContextBuilder({ records = [], referenceImages = [] } = {}) {
  const mirror = records.map((r) => ({ ...r }));
  let refs = validateReferenceImages(referenceImages);
  const nextSeq = () => (mirror.length ? mirror[mirror.length - 1].seq + 1 : 1);
  return {
    /** The mirrored records (read only). */
    get records() { return mirror; },
    /** Mirrors one record as the store will number it; returns the mirrored copy. */
    onRecord(record) {
      const r = { ...record, seq: nextSeq() };
      mirror.push(r);
      return r;
    },
    /** Sets the current task's reference images (validated; throws ContextError). */
    setReferenceImages(images) { refs = validateReferenceImages(images || []); },
    /** The current task's reference images. */
    get referenceImages() { return refs; },
    /** The session's buildMessages hook. */
    buildMessages(ctx) {
      return buildRequestMessages({ ...ctx, records: mirror, referenceImages: refs });
    },
  };
}
