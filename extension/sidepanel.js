// The Side Panel: chat view for agent tasks and the agent's settings.
//
// The agent loop runs here (AgentSession), so closing the panel ends it; the
// service worker only holds chrome.debugger. UI glue only: rules live in
// agent/config_validation.js, the loop in agent/agent_session.js.

import { AgentSession, OUTCOME } from './agent/agent_session.js';
import { createBrowserBridge, connectPanel } from './agent/browser_bridge.js';
import { createModelClient } from './agent/model_client.js';
import { validateTask, normalizeSettings, REMEMBER_KEY_WARNING, DEFAULTS } from './agent/config_validation.js';
import { loadSettings, saveSettings, ensureHostPermission } from './agent/settings.js';
import { pageRelay } from './agent/page_assistant_panel.js';

const $ = (id) => document.getElementById(id);
const FIELDS = ['apiUrl', 'model', 'apiKey', 'rememberKey', 'maxSteps', 'temperature', 'requestTimeoutMs', 'retryBaseMs', 'retryMaxMs', 'coordinateMode'];
const sessionId = crypto.randomUUID();
const model = createModelClient();
let settings = { ...DEFAULTS, apiKey: '' };
let template = '';
let windowId;
let session = null;
let stepEls = new Map();

// ---- views -------------------------------------------------------------------

function show(view) {
  $('chat-view').hidden = view !== 'chat';
  $('settings-view').hidden = view !== 'settings';
  $('show-chat').setAttribute('aria-pressed', String(view === 'chat'));
  $('show-settings').setAttribute('aria-pressed', String(view === 'settings'));
}

function addEntry(cls, text) {
  const li = document.createElement('li');
  li.className = cls;
  if (text !== undefined) li.textContent = text;
  $('log').append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

function blockedMessage(v) {
  pageRelay.blocked(v);
  const li = addEntry('error blocked', v.message);
  li.dataset.code = v.code;
  if (v.fix === 'settings') {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Open settings';
    b.addEventListener('click', () => show('settings'));
    li.append(' ', b);
  }
}

function setStatus(state, text) {
  $('status').dataset.state = state;
  $('status').textContent = text;
  const running = state === 'running';
  $('stop').disabled = !running && state !== 'waiting';
  $('run').disabled = running;
  $('run').textContent = state === 'waiting' ? 'Reply' : 'Run';
  $('task').placeholder = state === 'waiting' ? 'Answer the agent’s question…' : 'What should the agent do on the current tab?';
}

function stepEl(step) {
  let el = stepEls.get(step);
  if (!el) {
    el = addEntry('step');
    el.dataset.step = String(step);
    const head = document.createElement('div');
    head.className = 'head';
    head.textContent = `Step ${step}`;
    for (const c of ['think', 'action', 'result']) {
      const d = document.createElement('div');
      d.className = c;
      el.append(c === 'think' ? head : '', d);
    }
    stepEls.set(step, el);
  }
  return el;
}

function onEvent(e) {
  pageRelay.event(e);
  switch (e.type) {
    case 'attached':
      addEntry('info', `Controlling tab: ${e.target.title || ''} ${e.target.url}`);
      break;
    case 'step':
      setStatus('running', e.phase === 'observe' ? `Step ${e.step}: taking a screenshot…`
        : e.phase === 'request' ? `Step ${e.step}: waiting for the model…` : `Step ${e.step}: acting…`);
      break;
    case 'delta': {
      const m = /<think>([\s\S]*?)(<\/think>|$)/.exec(e.text);
      stepEl(e.step).querySelector('.think').textContent = (m ? m[1] : e.text).trim().slice(0, 600);
      break;
    }
    case 'retry':
      setStatus('running', `Step ${e.step}: ${e.reason}; retrying in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt + 1})…`);
      break;
    case 'parse_error':
      stepEl(e.step).querySelector('.result').textContent = `Unusable reply (${e.error}); asking the model again.`;
      break;
    case 'step_failed': {
      const r = stepEl(e.step).querySelector('.result');
      r.textContent = `Step failed: the model's reply could not be used: ${e.error}`;
      r.classList.add('failed');
      break;
    }
    case 'action': {
      const el = stepEl(e.step);
      el.querySelector('.think').textContent = e.think;
      el.querySelector('.action').textContent = e.actionText;
      el.dataset.action = e.action.name;
      break;
    }
    case 'result': {
      const r = stepEl(e.step).querySelector('.result');
      r.textContent = e.result;
      r.classList.toggle('failed', e.error);
      break;
    }
    case 'end':
      showOutcome(e);
      break;
    default:
  }
}

function showOutcome(e) {
  const text = {
    [OUTCOME.FINISHED]: `Finished: ${e.answer || '(no answer given)'}`,
    [OUTCOME.CALL_USER]: `The agent asks: ${e.question}`,
    [OUTCOME.STOPPED]: 'Stopped.',
    [OUTCOME.STEP_LIMIT]: `Stopped: ${e.error}.`,
    [OUTCOME.ERROR]: `Error: ${e.error}`,
  }[e.outcome];
  const li = addEntry(e.outcome === OUTCOME.ERROR ? 'outcome error' : 'outcome', text);
  li.dataset.outcome = e.outcome;
  const used = session?.usage || [];
  if (used.length) {
    const prompt = used.reduce((n, u) => n + (u.prompt_tokens || 0), 0);
    const completion = used.reduce((n, u) => n + (u.completion_tokens || 0), 0);
    const meter = document.createElement('div');
    meter.className = 'meter';
    meter.textContent = `${session.step} step(s), ${used.length} request(s), ${prompt} prompt + ${completion} completion tokens`;
    li.append(meter);
  }
  setStatus(e.outcome === OUTCOME.CALL_USER ? 'waiting' : 'idle', '');
}

// ---- running tasks -------------------------------------------------------------

async function startTask(task, target = {}) {
  if (session?.running) return;
  const text = task.trim();
  // A page's reply (target.reply) continues the task that asked, like one typed here.
  const replying = Boolean(session?.waitingForUser) && (!target.tabId || target.reply === true);
  pageRelay.begin(target.tabId, replying);
  const v = validateTask({ task: text, settings });
  if (!v.ok) return blockedMessage(v);
  // contains-then-request keeps the user gesture for request when it is needed.
  const granted = await ensureHostPermission(v.originPattern);
  if (!granted) return blockedMessage(validateTask({ task: text, settings, granted: false }));
  addEntry('user', text);
  $('task').value = '';
  const config = { settings: v.settings, endpoint: v.endpoint, loopback: v.loopback, apiKey: settings.apiKey, origin: location.origin };
  const browser = createBrowserBridge({ sessionId, windowId, coordinateMode: v.settings.coordinateMode });
  setStatus('running', 'Starting…');
  if (replying) {
    session.config = config;
    session.browser = browser;
    await session.reply(text);
    return;
  }
  stepEls = new Map();
  session = new AgentSession({ browser, model, template, config, onEvent });
  await session.run(text, target);
}

/** startTask with every unexpected failure shown in the log, never swallowed. */
function runSafely(task, target) {
  startTask(task, target).catch((err) => {
    addEntry('error', `Could not run the task: ${err?.message || err}`);
    pageRelay.error(`Could not run the task: ${err?.message || err}`);
    setStatus(session?.waitingForUser ? 'waiting' : 'idle', '');
  });
}

// ---- settings ------------------------------------------------------------------

function fillForm(s) {
  for (const k of FIELDS) {
    const el = $(k);
    if (el.type === 'checkbox') el.checked = Boolean(s[k]);
    else el.value = s[k] ?? '';
  }
  $('remember-warning').textContent = REMEMBER_KEY_WARNING;
  $('remember-warning').hidden = !s.rememberKey;
}

function readForm() {
  const out = {};
  for (const k of FIELDS) {
    const el = $(k);
    out[k] = el.type === 'checkbox' ? el.checked : el.type === 'number' ? (el.value === '' ? NaN : Number(el.value)) : el.value.trim();
  }
  return out;
}

async function onSave(ev) {
  ev.preventDefault();
  const values = readForm();
  const n = normalizeSettings(values);
  if (n.error) {
    $('settings-status').textContent = n.error;
    $('settings-status').className = 'error-text';
    return;
  }
  await saveSettings({ ...n.settings, apiKey: values.apiKey });
  settings = await loadSettings();
  $('settings-status').textContent = 'Saved.';
  $('settings-status').className = '';
}

async function onTestConnection() {
  const values = readForm();
  const v = validateTask({ settings: values });
  const out = $('settings-status');
  out.className = '';
  if (!v.ok) {
    out.textContent = v.message;
    out.className = 'error-text';
    return;
  }
  if (!(await ensureHostPermission(v.originPattern))) {
    out.textContent = validateTask({ settings: values, granted: false }).message;
    out.className = 'error-text';
    return;
  }
  out.textContent = 'Testing…';
  try {
    const r = await model.complete({
      endpoint: v.endpoint, apiKey: values.apiKey, model: v.settings.model, temperature: 0, loopback: v.loopback,
      origin: location.origin, messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
      timeoutMs: v.settings.requestTimeoutMs, retryBaseMs: v.settings.retryBaseMs, retryMaxMs: v.settings.retryMaxMs,
    }, {
      signal: AbortSignal.timeout(Math.max(30000, v.settings.requestTimeoutMs)),
      onRetry: (i) => { out.textContent = `Testing… ${i.reason}; retrying.`; },
    });
    out.textContent = `Connected: the model answered ${JSON.stringify(r.content.slice(0, 80))}${r.usage ? ` (${r.usage.total_tokens ?? '?'} tokens)` : ''}.`;
  } catch (err) {
    out.textContent = err?.code === 'stopped' ? 'No answer within the time limit.' : `Connection failed: ${err.message}`;
    out.className = 'error-text';
  }
}

// ---- start-up ------------------------------------------------------------------

async function main() {
  $('show-chat').addEventListener('click', () => show('chat'));
  $('show-settings').addEventListener('click', () => show('settings'));
  $('settings-form').addEventListener('submit', onSave);
  $('test-connection').addEventListener('click', onTestConnection);
  $('rememberKey').addEventListener('change', () => { $('remember-warning').hidden = !$('rememberKey').checked; });
  $('task-form').addEventListener('submit', (ev) => { ev.preventDefault(); runSafely($('task').value); });
  $('task').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); runSafely($('task').value); }
  });
  $('stop').addEventListener('click', () => {
    if (session?.running) return session.stop();
    // Waiting for an answer: Stop ends the task so the next input starts a new one.
    if (session?.waitingForUser) {
      session.stop();
      showOutcome({ outcome: OUTCOME.STOPPED });
    }
  });
  chrome.storage.onChanged.addListener(async () => {
    settings = await loadSettings();
    // Keep the form in step with storage unless the user is editing it.
    if (!$('settings-view').contains(document.activeElement)) fillForm(settings);
  });
  [settings, template, windowId] = await Promise.all([
    loadSettings(),
    fetch(chrome.runtime.getURL('prompts/venus_system.txt')).then((r) => r.text()),
    chrome.windows.getCurrent().then((w) => w.id),
  ]);
  fillForm(settings);
  await connectPanel({
    sessionId,
    windowId,
    onMessage: (m) => {
      // The Page Assistant: a page's task runs like one typed here; its Stop is this Stop.
      if (m.type === 'pageTask' && pageRelay.accept(m.tabId, session?.running)) runSafely(m.task, { tabId: m.tabId, reply: m.reply === true });
      if (m.type === 'pageStop' && pageRelay.owns(m.tabId)) $('stop').click();
    },
  });
  setStatus('idle', '');
  document.body.dataset.ready = 'true';
}

main();
