// Building the messages of one model request.
//
// The system prompt is a text file written by us (agent/prompts/venus_system.txt)
// filled with the date, the task and the viewport. The request carries the
// task, a text trajectory of earlier rounds, and at most three screenshots:
// the two previous observations and the current one. The side panel's request
// builder (context_builder.js) replaces buildMessages through the session's
// hook to add a summary and reference images; it keeps to the same limits
// (MAX_SCREENSHOTS, MAX_ROUNDS). Pure module.

/** Most screenshots in one request (two previous + current). */
export const MAX_SCREENSHOTS = 3;
/** Most rounds of text history replayed. */
export const MAX_ROUNDS = 30;

/** The warning added after two identical consecutive replies. */
export const LOOP_WARNING = 'Warning: your last two replies were identical, so the same action was repeated without the intended effect. Do not repeat it again: look at the screenshot, consider a different element, scrolling, waiting, or CallUser.';

/** Replaces {{name}} placeholders; unknown names are left visible so mistakes show. */
export function fillTemplate(template, vars) {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k) => (Object.hasOwn(vars, k) ? String(vars[k]) : m));
}

/** The prompt's sentence on how to point, per coordinate mode. */
export function coordinateRules(mode, viewport) {
  if (mode === 'absolute') {
    return `Point at things with pixel coordinates of that view: x from 0 to ${viewport.width - 1}, y from 0 to ${viewport.height - 1}, (0,0) is the top-left corner.`;
  }
  return 'Point at things with normalised coordinates: x and y are integers from 0 to 999, (0,0) is the top-left corner of the screenshot and (999,999) the bottom-right corner.';
}

/** Formats a date as YYYY-MM-DD (weekday) in local time. */
export function formatDate(d) {
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} (${days[d.getDay()]})`;
}

/** The lines of a desktop observation: which surface, which server, the screen's and the image's size. */
export function desktopObservationText(o) {
  const d = o.desktop || {};
  return `Surface: desktop (the computer's screen, through the desktop server "${d.server || '?'}")\nScreenshot: ${o.viewport.width} x ${o.viewport.height} pixels (the server's is ${d.width || '?'} x ${d.height || '?'})`;
}

function observationText(obs) {
  if (obs.surface === 'desktop') return desktopObservationText(obs);
  return `URL: ${obs.url || '(unknown)'}\nTitle: ${obs.title || ''}\nViewport: ${obs.viewport.width} x ${obs.viewport.height} CSS pixels`;
}

function imagePart(obs) {
  return { type: 'image_url', image_url: { url: `data:${obs.mime || 'image/jpeg'};base64,${obs.image}` } };
}

/**
 * Builds the message list.
 * @param {object} ctx
 * @param {string} ctx.template system prompt template
 * @param {Date} ctx.now
 * @param {string} ctx.task the task as first given
 * @param {Array} ctx.history entries {kind:'round', step, observation, reply, result} | {kind:'user'|'note', text}
 * @param {object} ctx.current the current observation {image, mime, viewport, url, title}
 * @param {string[]} [ctx.warnings] extra lines for this request (loop recovery…)
 * @param {number} ctx.step the step number being requested (1-based)
 * @param {number} ctx.maxSteps
 */
export function buildMessages(ctx) {
  const system = fillTemplate(ctx.template, {
    date: formatDate(ctx.now),
    task: ctx.task,
    viewport_width: ctx.current.viewport.width,
    viewport_height: ctx.current.viewport.height,
    coordinate_rules: coordinateRules(ctx.coordinateMode, ctx.current.viewport),
  });
  const messages = [{ role: 'system', content: system }, { role: 'user', content: `Task: ${ctx.task}` }];
  let entries = ctx.history;
  const rounds = entries.filter((e) => e.kind === 'round');
  if (rounds.length > MAX_ROUNDS) {
    const keepFrom = rounds[rounds.length - MAX_ROUNDS];
    entries = entries.slice(entries.indexOf(keepFrom));
  }
  // Screenshots only for the last MAX_SCREENSHOTS-1 rounds; the current one is the last.
  const withImage = new Set(rounds.slice(-(MAX_SCREENSHOTS - 1)));
  let pendingResult = null;
  // User replies and notes after the last round belong to the current request's message.
  const said = (e) => (e.kind === 'note' ? `Note: ${e.text}` : `The user replied: ${e.text}`);
  const lastRound = entries.findLastIndex((e) => e.kind === 'round');
  const tail = entries.slice(lastRound + 1).filter((e) => e.kind === 'user' || e.kind === 'note');
  entries = entries.slice(0, lastRound + 1);
  for (const e of entries) {
    if (e.kind === 'user' || e.kind === 'note') {
      messages.push({ role: 'user', content: said(e) });
      continue;
    }
    const text = `${pendingResult ? `Result of step ${pendingResult.step}: ${pendingResult.result}\n\n` : ''}Step ${e.step} observation.\n${observationText(e.observation)}`;
    const content = [{ type: 'text', text }];
    if (withImage.has(e) && e.observation.image) content.push(imagePart(e.observation));
    messages.push({ role: 'user', content });
    messages.push({ role: 'assistant', content: e.reply });
    pendingResult = e;
  }
  const lines = [];
  if (pendingResult) lines.push(`Result of step ${pendingResult.step}: ${pendingResult.result}`);
  for (const e of tail) lines.push(said(e));
  for (const w of ctx.warnings || []) lines.push(w);
  lines.push(`Step ${ctx.step} of at most ${ctx.maxSteps}. Current observation.\n${observationText(ctx.current)}`);
  lines.push('Reply with <think>…</think> and exactly one <action>…</action>.');
  messages.push({ role: 'user', content: [{ type: 'text', text: lines.join('\n\n') }, imagePart(ctx.current)] });
  return messages;
}

/** The corrective re-ask after an unparsable reply. */
export function reaskMessage(error) {
  return `Your reply could not be used: ${error}. Answer again with exactly one action, in the form <think>…</think><action>ActionName(arguments)</action>, using only the listed actions.`;
}
