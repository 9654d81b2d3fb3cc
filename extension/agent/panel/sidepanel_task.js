// Running a task from the Side Panel: a task typed here or sent by a page's
// Page Assistant, or the answer to the agent's question, run by an
// AgentSession whose records are mirrored in the context builder and stored
// in the conversation; Stop; and, when a conversation is opened, its task
// reopened if it is still waiting for an answer.

import { AgentSession, OUTCOME } from '../core/agent_session.js';
import { createBrowserBridge } from './browser_bridge.js';
import { validateTask } from '../core/config_validation.js';
import { ensureHostPermission } from './settings.js';
import { createContextBuilder } from '../core/context_builder.js';
import { createMeter, meterFromRecords } from '../core/task_meter.js';
import { thumbnails } from './conversation_view.js';
import { pageRelay } from './page_assistant_panel.js';
import { panel, queueWrite, writesSettled } from './sidepanel_state.js';
import { modelFor } from './sidepanel_models.js';
import { addEntry, blockedMessage, clearLog, forgetSteps, onEvent, resolveBlocked, setStatus, showMeter, showOutcome } from './sidepanel_log.js';
import { compactBeforeTask, compactWithinTask, resetCompaction } from './sidepanel_compaction.js';
import { pendingQuestion } from '../core/sidepanel_outcome.js';
import { recordAgentTask } from '../../shared/activity.js';

const $ = (id) => document.getElementById(id);
let builder = null; // the context builder of the current task (core/context_builder.js)
let taskSeq = 0; // the seq of the current task's record (screenshots and reference images are kept under it)

/** True while a task or the compaction before one runs. */
export function busy() {
  return Boolean(panel.session?.running || panel.compacting);
}

/** Stores a record of the running task, in order, without its images. */
function persist(conversationId, record) {
  queueWrite(() => panel.store.append(conversationId, record),
    (err) => { addEntry('error', `Could not save to the conversation: ${err?.message || err}`); });
}

/** The active conversation changed (panel opened, selector, New, Delete). */
export async function onSwitch(id, records) {
  if (panel.session?.running) panel.session.stop();
  panel.session = null;
  builder = null;
  clearLog();
  panel.meter = records.some((r) => r.kind === 'task') ? meterFromRecords(records, { maxSteps: panel.settings.maxSteps }) : null;
  showMeter();
  setStatus('idle', '');
  const question = pendingQuestion(records);
  if (question) await restoreQuestion(id, records, question);
}

/**
 * Reopens a task where it stopped to ask the user: the question stays
 * pending, Run says Reply, and the answer continues the same task (its
 * records, step count, reference images and tab).
 */
async function restoreQuestion(conversationId, records, question) {
  const taskRec = records.findLast((r) => r.kind === 'task' && r.seq < question.seq);
  if (!taskRec) return;
  const steps = records.filter((r) => r.seq > taskRec.seq && r.kind === 'action').map((r) => r.step);
  const refs = await panel.store.referenceImages(conversationId, taskRec.seq).catch(() => []);
  const b = createContextBuilder({ records, referenceImages: refs });
  builder = b;
  taskSeq = taskRec.seq;
  panel.session = newSession(conversationId, b, null);
  panel.session.restoreWaiting({ task: taskRec.text, step: steps.length ? Math.max(...steps) : 0, tabId: question.tabId });
  // The question moves from the past records to the live log, where its answer follows.
  $('past').querySelector(`li[data-seq="${question.seq}"]`)?.remove();
  const li = addEntry('outcome question', `The agent asks: ${question.text}`);
  li.dataset.outcome = 'call_user';
  const hint = document.createElement('span');
  hint.className = 'hint';
  hint.textContent = 'Type your answer below and press Reply to continue the task, or Stop to end it.';
  li.append(hint);
  setStatus('waiting', '');
}

/** The running task's AgentSession, its records mirrored by b and stored in the conversation. */
function newSession(conversationId, b, config, { browser = null, refs = [] } = {}) {
  return new AgentSession({
    browser, model: config ? modelFor(config.settings) : null, template: panel.template, config, onEvent,
    buildMessages: (ctx) => b.buildMessages(ctx),
    onRecord: (r) => {
      const rec = refs.length && (r.kind === 'task' || r.kind === 'user') ? { ...r, images: refs.map(({ name, mime, size }) => ({ name, mime, size })) } : r;
      const mirrored = b.onRecord(rec);
      persist(conversationId, rec);
      if (r.kind === 'task') taskSeq = mirrored.seq;
      if (r.kind === 'outcome') recordAgentTask({ conversation: conversationId, seq: taskSeq, task: panel.session?.task, steps: panel.session?.step, outcome: r.outcome, text: r.text, url: panel.session?.target?.url });
      if (rec.images) {
        const seq = taskSeq;
        const imgs = refs;
        queueWrite(() => panel.store.putReferenceImages(conversationId, seq, imgs));
        refs = [];
      }
    },
    beforeRequest: async (ctx) => {
      const seq = taskSeq;
      const shot = { mime: ctx.current.mime, image: ctx.current.image };
      const keep = panel.session?.config?.settings.keepScreenshots ?? panel.settings.keepScreenshots;
      queueWrite(() => panel.store.putScreenshot(conversationId, seq, ctx.step, shot, { keep }),
        (err) => { addEntry('error', `Could not keep the screenshot: ${err?.message || err}`); });
      await compactWithinTask(b, ctx, (r) => persist(conversationId, r));
    },
  });
}

async function startTask(task, target = {}) {
  if (busy()) return;
  const text = task.trim();
  // A page's reply (target.reply) continues the task that asked, like one typed here.
  const replying = Boolean(panel.session?.waitingForUser) && (!target.tabId || target.reply === true);
  pageRelay.begin(target.tabId, replying);
  const v = validateTask({ task: text, settings: panel.settings });
  if (!v.ok) return blockedMessage(v);
  // contains-then-request keeps the user gesture for request when it is needed.
  // Via the host the extension never fetches the endpoint itself: no permission needed.
  const granted = v.settings.connection === 'host' || await ensureHostPermission(v.originPattern);
  if (!granted) return blockedMessage(validateTask({ task: text, settings: panel.settings, granted: false }));
  resolveBlocked('Resolved: the settings are complete now.');
  const refs = panel.images.take();
  const userLi = addEntry('user', text);
  if (refs.length) {
    userLi.dataset.images = String(refs.length);
    userLi.append(thumbnails(refs));
  }
  $('task').value = '';
  // Via the host no Origin header reaches the server, so a 403 is not the origin setting (loopback: false).
  const config = { settings: v.settings, endpoint: v.endpoint, loopback: v.loopback && v.settings.connection !== 'host', apiKey: panel.settings.apiKey, origin: location.origin };
  const browser = createBrowserBridge({ sessionId: panel.sessionId, windowId: panel.windowId, coordinateMode: v.settings.coordinateMode });
  setStatus('running', 'Starting…');
  panel.bar.setBusy(true);
  if (replying) {
    panel.session.config = config;
    panel.session.browser = browser;
    panel.session.model = modelFor(v.settings);
    if (refs.length) {
      builder?.setReferenceImages(refs);
      const seq = taskSeq;
      queueWrite(() => panel.store.putReferenceImages(panel.bar.activeId, seq, refs));
    }
    const extra = refs.length ? { images: refs.map(({ name, mime, size }) => ({ name, mime, size })) } : {};
    await panel.session.reply(text, { extra, preferTabId: panel.session.lastTabId });
    return;
  }
  forgetSteps();
  const conversationId = panel.bar.activeId;
  await writesSettled();
  let records = await panel.store.records(conversationId);
  if (!(await compactBeforeTask(conversationId, records, config))) {
    showOutcome({ outcome: OUTCOME.STOPPED, compaction: true });
    return;
  }
  records = await panel.store.records(conversationId);
  const b = createContextBuilder({ records, referenceImages: refs });
  builder = b;
  panel.meter = createMeter({ maxSteps: v.settings.maxSteps });
  showMeter();
  resetCompaction();
  panel.session = newSession(conversationId, b, config, { browser, refs });
  await panel.session.run(text, target);
}

/** Runs a task (or a reply) with every unexpected failure shown in the log, never swallowed. */
export function runSafely(task, target) {
  startTask(task, target).catch((err) => {
    addEntry('error', `Could not run the task: ${err?.message || err}`);
    pageRelay.error(`Could not run the task: ${err?.message || err}`);
    setStatus(panel.session?.waitingForUser ? 'waiting' : 'idle', '');
    panel.bar?.setBusy(false);
  });
}

/** Stop: ends a compaction or a running task, or a task waiting for an answer. */
export function stopTask() {
  const { session } = panel;
  if (panel.compacting) return panel.compacting.abort();
  if (session?.running) return session.stop();
  // Waiting for an answer: Stop ends the task so the next input starts a new one
  // (recorded, so a reopened panel does not ask again).
  if (session?.waitingForUser) {
    session.stop();
    session.record({ kind: 'outcome', outcome: OUTCOME.STOPPED, text: 'the question was left unanswered' });
    showOutcome({ outcome: OUTCOME.STOPPED });
  }
}
