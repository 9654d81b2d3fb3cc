// The messages of one action request, built from the conversation's records
// instead of replaying the whole conversation. A request holds: the system
// prompt, the compacted summary of older records, the text history that
// context_history.js selects (at most the latest 30 rounds), at most three
// observation screenshots (the two previous steps' and the current one, all
// held in memory only) and the current task's reference images.
//
// createContextBuilder is what the Side Panel hands the agent session: an
// in-memory mirror of the conversation's records, fed by the session's
// onRecord hook, and its buildMessages hook over that mirror.
//
// Pure module: records come from conversation_store.js, nothing is fetched.

import { desktopObservationText, fillTemplate, formatDate, MAX_ROUNDS, MAX_SCREENSHOTS } from './prompt.js';
import { selectHistory } from './context_history.js';
import { validateReferenceImages } from './image_data.js';


function observationText(o) {
  if (!o) return '';
  if (o.surface === 'desktop' && o.viewport) return desktopObservationText(o);
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
    const line = r && resultLine(r);
    return line ? `${line}\n\n` : '';
  };
  // Replies, outcomes and notes after the last round or task are news for
  // this request: they go into its final message (the user's answer to
  // CallUser right before the current observation).
  let tailStart = entries.length;
  while (tailStart > 0 && ['user', 'outcome', 'note'].includes(entries[tailStart - 1].kind)) tailStart--;
  const tail = entries.slice(tailStart);
  // A CallUser is a question inside the task, not its end: the answer continues it.
  const tailText = (e) => (e.kind === 'user' ? answerText(e.text, e)
    : e.kind === 'outcome' ? outcomeText(e) : `Note: ${e.text}`);
  for (const e of entries.slice(0, tailStart)) {
    switch (e.kind) {
      case 'task': {
        const text = `${flush()}${e === taskEntry ? 'Task' : 'Earlier task'}: ${e.text}`;
        messages.push(e === taskEntry ? taskMessage(text) : { role: 'user', content: text });
        break;
      }
      case 'user':
        messages.push({ role: 'user', content: `${flush()}${answerText(e.text, e)}` });
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

/**
 * The line that says what a round's action did, or '' for a round that ends
 * the task or asks the user (Finished, CallUser: what follows says how it
 * went). A round with no result recorded (its panel closed while it ran)
 * says that, never "(none)".
 */
export function resultLine(round) {
  if (round.result) return `Result of step ${round.step}: ${round.result}`;
  if (/^(CallUser|Finished)\(/.test(round.action || '')) return '';
  return `Result of step ${round.step}: not known: the step ended before its action reported back.`;
}

/** How a question the agent asked (CallUser) or the end of a task reads in the history. */
export function outcomeText(e) {
  if (e.outcome === 'call_user') return `You asked the user (CallUser): ${e.text}`;
  return `(That task ended: ${e.outcome}${e.text ? ` — ${e.text}` : ''})`;
}

/**
 * The user's answer to a CallUser question; {acted: true} marks the answer
 * "I did it on the page" (the user acted on the page by hand).
 */
export function answerText(text, { acted = false } = {}) {
  if (acted) return `The user answered your question: ${text} The user acted on the page by hand: the current screenshot shows the page as it is now.`;
  return `The user answered your question: ${text}`;
}

/** Counts the observation screenshots and reference images of a message list. */
export function countImages(messages) {
  let n = 0;
  for (const m of messages) if (Array.isArray(m.content)) n += m.content.filter((p) => p.type === 'image_url').length;
  return n;
}

/**
 * Connects the request builder to the agent session's hooks. It keeps an
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
