// The Side Panel's side of a task: it builds the task pipeline
// (core/task_pipeline.js) with the panel's store, settings, permission
// request, model clients and browser bridge, hands it what the person does
// (Run or Reply, Stop, Pause and Resume, "I did it on the page", a page's
// Page Assistant task or control) and lets sidepanel_log.js render what
// comes back. Nothing here decides how a task runs.

import { createTaskPipeline, TASK_STATE } from '../core/task_pipeline.js';
import { surfacesFor } from './desktop_panel.js';
import { ensureHostPermission } from './settings_store.js';
import { pageRelay } from './page_assistant_panel.js';
import { link } from './worker_link.js';
import { panel } from './sidepanel_state.js';
import { modelFor } from './sidepanel_models.js';
import { render } from './sidepanel_log.js';
import { ACTED_ANSWER } from '../core/page_assistant_state.js';
import { $ } from '../../shared/page.js';

/** True while a task starts, runs or is paused (the conversation may not change). */
export function busy() {
  return Boolean(panel.pipeline?.busy());
}

/**
 * Another Side Panel is open (in a side panel or, as in the tests, a tab): it
 * may be running the conversation's last task, which is then not interrupted.
 */
async function liveElsewhere() {
  const url = chrome.runtime.getURL('agent/panel/sidepanel.html');
  const contexts = await chrome.runtime.getContexts?.({ documentUrls: [url] }).catch(() => []) || [];
  return contexts.length > 1;
}

/**
 * The permission to reach the model server; while the browser asks the
 * person for it, the status line says what the task waits for.
 */
function grant(originPattern) {
  const host = originPattern.replace(/^[a-z]+:\/\//, '').replace(/\/\*$/, '');
  return ensureHostPermission(originPattern, {
    onAsk: () => { $('status').textContent = `Waiting for your answer: the browser asks whether Gnosis may reach ${host}. Allow it there and the task starts.`; },
  });
}

/** Builds the pipeline and subscribes the log to it. */
export function createPipeline() {
  panel.pipeline = createTaskPipeline({
    store: panel.store,
    settings: () => panel.settings,
    template: () => panel.template,
    grant,
    modelFor,
    browserFor: surfacesFor,
    origin: location.origin,
    liveElsewhere,
    onOutcome: (t) => link.recordTask(t),
  });
  panel.pipeline.subscribe(render);
  return panel.pipeline;
}

/** The active conversation changed (panel opened, selector, New, Delete). */
export function onSwitch(id, records) {
  return panel.pipeline.open(id, records);
}

/** Run (or Reply) from the panel's task box, with the images picked for it. */
export function runFromPanel(text, { acted = false } = {}) {
  return panel.pipeline.start(text, { images: () => panel.images.take(), acted });
}

/** "I did it on the page": the answer to the agent's question is what the person did on the page. */
export function actedOnPage() {
  return runFromPanel(ACTED_ANSWER, { acted: true });
}

/** Stop: ends a compaction, a running or paused task, or a question left unanswered. */
export function stopTask() {
  panel.pipeline.stop();
}

/** Pause while running, Resume while paused. */
export function pauseOrResume() {
  if (panel.pipeline.state === TASK_STATE.PAUSED) panel.pipeline.resume();
  else panel.pipeline.pause();
}

/** A page's Page Assistant: its task runs like one typed here; its Stop, Pause and Resume are these. */
export function fromPage(kind, m) {
  if (kind === 'task') {
    if (!pageRelay.accept(m.tabId, busy())) return;
    panel.pipeline.start(m.task, { tabId: m.tabId, reply: m.reply === true, acted: m.acted === true, surface: m.surface === 'desktop' ? 'desktop' : 'tab' });
    return;
  }
  if (!pageRelay.owns(m.tabId)) return;
  if (kind === 'stop') stopTask();
  else if (kind === 'pause' && panel.pipeline.state !== TASK_STATE.PAUSED) panel.pipeline.pause();
  else if (kind === 'resume' && panel.pipeline.state === TASK_STATE.PAUSED) panel.pipeline.resume();
}

/** Wires the task box's buttons. */
export function wireTaskControls() {
  $('task-form').addEventListener('submit', (ev) => { ev.preventDefault(); runFromPanel($('task').value); });
  $('task').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); runFromPanel($('task').value); }
  });
  $('stop').addEventListener('click', stopTask);
  $('retry-stop').addEventListener('click', stopTask);
  $('pause').addEventListener('click', pauseOrResume);
  $('acted').addEventListener('click', actedOnPage);
}
