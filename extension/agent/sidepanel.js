// The Side Panel: chat view for agent tasks and the agent's settings.
//
// The agent loop runs here (AgentSession), so closing the panel ends it; the
// service worker only holds chrome.debugger. UI glue only: rules live in
// agent/config_validation.js, the loop in agent/agent_session.js.

import { AgentSession, OUTCOME } from './agent_session.js';
import { createBrowserBridge, connectPanel } from './browser_bridge.js';
import { createModelClient } from './model_client.js';
import { validateTask, normalizeSettings, needsSetup, settingsErrors, REMEMBER_KEY_WARNING, DEFAULTS } from './config_validation.js';
import { loadSettings, saveSettings, ensureHostPermission } from './settings.js';
import { openConversationStore } from './conversation_store.js';
import { compactIfNeeded, createContextBuilder, createMeter, estimateTokens, formatMeter, KEEP_ROUNDS, lastPromptTokens, lastUsage, meterFromRecords } from './context_manager.js';
import { createConversationBar, thumbnails } from './conversation_view.js';
import { attachReferenceImages } from './reference_images.js';
import { createProxiedRequest } from './host_proxy.js';
import { createRelayFetch } from './relay_client.js';
import { pageRelay } from './page_assistant_panel.js';
import { retryText } from '../shared/ui.js';
import { AGENT_NEEDS_CHROMIUM, features } from '../shared/browser.js';

const $ = (id) => document.getElementById(id);
const FIELDS = ['apiUrl', 'model', 'apiKey', 'rememberKey', 'maxSteps', 'temperature', 'requestTimeoutMs', 'retryBaseMs', 'retryMaxMs', 'coordinateMode', 'connection', 'compactAtTokens', 'keepScreenshots'];
const sessionId = crypto.randomUUID();
const model = createModelClient();
// Host methods go through the service worker's one native port (host_proxy.js).
const hostRequest = createProxiedRequest();
// "Connection: via gnosis-host": the same client over relay.fetch (no Origin header reaches the gateway).
const relayModel = createModelClient({ fetch: createRelayFetch({ request: hostRequest }) });
const modelFor = (s) => (s.connection === 'host' ? relayModel : model);
let store;
let bar;
let images;
let builder = null; // the context builder of the current task (context_manager.js)
let meter = null; // the current task's step and token meter
let writes = Promise.resolve(); // record appends, in order
let pendingWrites = 0;

/**
 * Queues a conversation write after the earlier ones. While any is pending
 * the body says data-saving="true", so a test (or a person) can tell the
 * panel is safe to close.
 */
function queueWrite(write, onError = () => {}) {
  pendingWrites += 1;
  document.body.dataset.saving = 'true';
  writes = writes.then(write).catch(onError).finally(() => {
    pendingWrites -= 1;
    if (pendingWrites === 0) document.body.dataset.saving = 'false';
  });
  return writes;
}
let compacting = null; // AbortController of a compaction request in flight
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
  li.dataset.fix = v.fix;
  if (v.fix === 'settings') {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Open settings';
    b.addEventListener('click', () => show('settings'));
    li.append(' ', b);
  }
}

function setStatus(state, text) {
  if (state !== 'running') showRetry(null);
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

/** The retry card: the failed request's reason and a countdown to the next try, with Stop. */
let retryTimer = 0;
function showRetry(retry) {
  clearInterval(retryTimer);
  retryTimer = 0;
  $('retry').hidden = !retry;
  if (!retry) return;
  const tick = () => { $('retry-text').textContent = retryText(retry, Date.now()); };
  tick();
  retryTimer = setInterval(tick, 250);
}

/** Error cards whose cause the person has fixed since stay in the log, marked as no longer current. */
function resolveBlocked(note) {
  for (const li of $('log').querySelectorAll('li.blocked:not(.resolved)')) {
    if (li.dataset.fix !== 'settings' && li.dataset.fix !== 'permission') continue;
    li.classList.remove('error');
    li.classList.add('resolved');
    li.querySelector('button')?.remove();
    const span = document.createElement('span');
    span.className = 'resolved-note';
    span.textContent = note;
    li.append(span);
  }
}

function onEvent(e) {
  pageRelay.event(e);
  if (e.type === 'delta' || e.type === 'action' || e.type === 'end' || e.type === 'result') showRetry(null);
  switch (e.type) {
    case 'attached':
      addEntry('info', `Controlling tab: ${e.target.title || ''} ${e.target.url}`);
      break;
    case 'step':
      showRetry(null);
      setStatus('running', e.phase === 'observe' ? `Step ${e.step}: taking a screenshot…`
        : e.phase === 'request' ? `Step ${e.step}: waiting for the model…` : `Step ${e.step}: acting…`);
      break;
    case 'delta': {
      const m = /<think>([\s\S]*?)(<\/think>|$)/.exec(e.text);
      stepEl(e.step).querySelector('.think').textContent = (m ? m[1] : e.text).trim().slice(0, 600);
      break;
    }
    case 'retry':
      setStatus('running', `Step ${e.step}: the model request failed; waiting to try again.`);
      showRetry({ reason: e.reason, attempt: e.attempt, until: Date.now() + e.delayMs });
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
    case 'usage':
      meter?.usage(e.usage);
      showMeter();
      break;
    case 'action': {
      meter?.step();
      showMeter();
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
  pageRelay.outcome(e);
  const text = {
    [OUTCOME.FINISHED]: `Finished: ${e.answer || '(no answer given)'}`,
    [OUTCOME.CALL_USER]: `The agent asks: ${e.question}`,
    [OUTCOME.STOPPED]: 'Stopped.',
    [OUTCOME.STEP_LIMIT]: `Stopped: ${e.error}.`,
    [OUTCOME.ERROR]: `Error: ${e.error}`,
  }[e.outcome];
  const li = addEntry(e.outcome === OUTCOME.ERROR ? 'outcome error' : e.outcome === OUTCOME.CALL_USER ? 'outcome question' : 'outcome', text);
  li.dataset.outcome = e.outcome;
  const used = e.compaction ? [] : session?.usage || []; // a stopped compaction ran no step
  if (used.length) {
    const prompt = used.reduce((n, u) => n + (u.prompt_tokens || 0), 0);
    const completion = used.reduce((n, u) => n + (u.completion_tokens || 0), 0);
    const estimated = used.some((u) => u.estimated);
    const meter = document.createElement('div');
    meter.className = 'meter';
    meter.textContent = `${session.step} step(s), ${used.length} request(s), ${estimated ? '≈' : ''}${prompt} prompt + ${estimated ? '≈' : ''}${completion} completion tokens${estimated ? ' (estimated: the server reported no usage)' : ''}`;
    li.append(meter);
  }
  setStatus(e.outcome === OUTCOME.CALL_USER ? 'waiting' : 'idle', '');
  bar?.setBusy(false);
  writes.then(() => bar?.refresh()).catch(() => {});
}

function showMeter() {
  const el = $('meter');
  if (!meter) { el.textContent = ''; return; }
  const m = meter.snapshot();
  el.textContent = formatMeter(m);
  el.dataset.steps = String(m.steps);
  el.dataset.totalTokens = String(m.totalTokens);
  el.dataset.estimated = String(m.estimated);
}

// ---- conversations ------------------------------------------------------------

/** Stores a record of the running task, in order, without its images. */
function persist(conversationId, record) {
  queueWrite(() => store.append(conversationId, record),
    (err) => { addEntry('error', `Could not save to the conversation: ${err?.message || err}`); });
}

/** The active conversation changed (panel opened, selector, New, Delete). */
async function onSwitch(id, records) {
  if (session?.running) session.stop();
  session = null;
  builder = null;
  stepEls = new Map();
  $('log').replaceChildren();
  meter = records.some((r) => r.kind === 'task') ? meterFromRecords(records, { maxSteps: settings.maxSteps }) : null;
  showMeter();
  setStatus('idle', '');
  const question = pendingQuestion(records);
  if (question) await restoreQuestion(id, records, question);
}

/**
 * The CallUser outcome the conversation ends with, still unanswered, or
 * null. Only notes may follow it.
 */
function pendingQuestion(records) {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.kind === 'note' || r.kind === 'summary') continue;
    return r.kind === 'outcome' && r.outcome === 'call_user' ? r : null;
  }
  return null;
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
  const refs = await store.referenceImages(conversationId, taskRec.seq).catch(() => []);
  const b = createContextBuilder({ records, referenceImages: refs });
  builder = b;
  taskSeq = taskRec.seq;
  session = newSession(conversationId, b, null);
  session.restoreWaiting({ task: taskRec.text, step: steps.length ? Math.max(...steps) : 0, tabId: question.tabId });
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

async function exportConversation(id) {
  await writes;
  const x = await store.exportConversation(id, { keepScreenshots: settings.keepScreenshots });
  const url = URL.createObjectURL(new Blob([x.text], { type: x.mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = x.filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/**
 * Before a new task: when the previous request's prompt usage exceeded the
 * threshold, the model (temperature 0) folds the unsummarised records into a
 * summary. Returns false when the user stopped it.
 */
async function compactBeforeTask(conversationId, records, config) {
  const used = lastPromptTokens(records);
  const threshold = config.settings.compactAtTokens;
  if (used <= threshold) return true;
  const estimated = lastUsage(records)?.estimated ? ' (estimated)' : '';
  const ac = new AbortController();
  compacting = ac;
  setStatus('running', `Compacting the conversation (the last request used ${used} prompt tokens${estimated})…`);
  try {
    const summary = await compactIfNeeded({
      records,
      threshold,
      append: (r) => store.append(conversationId, r),
      complete: (req) => modelFor(config.settings).complete({
        endpoint: config.endpoint, apiKey: config.apiKey, model: config.settings.model,
        messages: req.messages, temperature: req.temperature, loopback: config.loopback, origin: config.origin,
        timeoutMs: config.settings.requestTimeoutMs, retryBaseMs: config.settings.retryBaseMs, retryMaxMs: config.settings.retryMaxMs,
      }, { signal: ac.signal, onRetry: (i) => setStatus('running', `Compacting: ${i.reason}; retrying…`) }),
    });
    if (summary) addEntry('info compacted', `Compacted the earlier records into a summary (the last request used ${used} prompt tokens${estimated}).`);
    return true;
  } catch (err) {
    if (ac.signal.aborted) return false;
    addEntry('error', `Could not compact the conversation (${err?.message || err}); continuing with the latest rounds only.`);
    return true;
  } finally {
    compacting = null;
  }
}

/** A model request for compaction with the task's connection settings. */
function compactionRequest(config, signal, onRetry) {
  return (req) => modelFor(config.settings).complete({
    endpoint: config.endpoint, apiKey: config.apiKey, model: config.settings.model,
    messages: req.messages, temperature: req.temperature, loopback: config.loopback, origin: config.origin,
    timeoutMs: config.settings.requestTimeoutMs, retryBaseMs: config.settings.retryBaseMs, retryMaxMs: config.settings.retryMaxMs,
  }, { signal, onRetry });
}

let nextCompactionStep = 0; // no second compaction inside a task before this step

/**
 * Inside a task, before a request: when the request would pass the
 * threshold (the server's last reported prompt size, else the estimate of
 * the request itself), the unsummarised records but the task's latest rounds
 * are folded into a summary first. A failure leaves the context as it was.
 */
async function compactWithinTask(conversationId, b, ctx) {
  const config = session?.config;
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
      append: (r) => { const mirrored = b.onRecord(r); persist(conversationId, r); return mirrored; },
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

let taskSeq = 0; // the seq of the current task's record (screenshots and reference images are kept under it)

/** The running task's AgentSession, its records mirrored by b and stored in the conversation. */
function newSession(conversationId, b, config, { browser = null, refs = [] } = {}) {
  return new AgentSession({
    browser, model: config ? modelFor(config.settings) : null, template, config, onEvent,
    buildMessages: (ctx) => b.buildMessages(ctx),
    onRecord: (r) => {
      const rec = refs.length && (r.kind === 'task' || r.kind === 'user') ? { ...r, images: refs.map(({ name, mime, size }) => ({ name, mime, size })) } : r;
      const mirrored = b.onRecord(rec);
      persist(conversationId, rec);
      if (r.kind === 'task') taskSeq = mirrored.seq;
      if (rec.images) {
        const seq = taskSeq;
        const imgs = refs;
        queueWrite(() => store.putReferenceImages(conversationId, seq, imgs));
        refs = [];
      }
    },
    beforeRequest: async (ctx) => {
      const seq = taskSeq;
      const shot = { mime: ctx.current.mime, image: ctx.current.image };
      const keep = session?.config?.settings.keepScreenshots ?? settings.keepScreenshots;
      queueWrite(() => store.putScreenshot(conversationId, seq, ctx.step, shot, { keep }),
        (err) => { addEntry('error', `Could not keep the screenshot: ${err?.message || err}`); });
      await compactWithinTask(conversationId, b, ctx);
    },
  });
}

// ---- running tasks -------------------------------------------------------------

async function startTask(task, target = {}) {
  if (session?.running || compacting) return;
  const text = task.trim();
  // A page's reply (target.reply) continues the task that asked, like one typed here.
  const replying = Boolean(session?.waitingForUser) && (!target.tabId || target.reply === true);
  pageRelay.begin(target.tabId, replying);
  const v = validateTask({ task: text, settings });
  if (!v.ok) return blockedMessage(v);
  // contains-then-request keeps the user gesture for request when it is needed.
  // Via the host the extension never fetches the endpoint itself: no permission needed.
  const granted = v.settings.connection === 'host' || await ensureHostPermission(v.originPattern);
  if (!granted) return blockedMessage(validateTask({ task: text, settings, granted: false }));
  resolveBlocked('Resolved: the settings are complete now.');
  const refs = images.take();
  const userLi = addEntry('user', text);
  if (refs.length) {
    userLi.dataset.images = String(refs.length);
    userLi.append(thumbnails(refs));
  }
  $('task').value = '';
  // Via the host no Origin header reaches the server, so a 403 is not the origin setting (loopback: false).
  const config = { settings: v.settings, endpoint: v.endpoint, loopback: v.loopback && v.settings.connection !== 'host', apiKey: settings.apiKey, origin: location.origin };
  const browser = createBrowserBridge({ sessionId, windowId, coordinateMode: v.settings.coordinateMode });
  setStatus('running', 'Starting…');
  bar.setBusy(true);
  if (replying) {
    session.config = config;
    session.browser = browser;
    session.model = modelFor(v.settings);
    if (refs.length) {
      builder?.setReferenceImages(refs);
      const seq = taskSeq;
      queueWrite(() => store.putReferenceImages(bar.activeId, seq, refs));
    }
    const extra = refs.length ? { images: refs.map(({ name, mime, size }) => ({ name, mime, size })) } : {};
    await session.reply(text, { extra, preferTabId: session.lastTabId });
    return;
  }
  stepEls = new Map();
  const conversationId = bar.activeId;
  await writes;
  let records = await store.records(conversationId);
  if (!(await compactBeforeTask(conversationId, records, config))) {
    showOutcome({ outcome: OUTCOME.STOPPED, compaction: true });
    return;
  }
  records = await store.records(conversationId);
  const b = createContextBuilder({ records, referenceImages: refs });
  builder = b;
  meter = createMeter({ maxSteps: v.settings.maxSteps });
  showMeter();
  nextCompactionStep = 0;
  session = newSession(conversationId, b, config, { browser, refs });
  await session.run(text, target);
}

/** startTask with every unexpected failure shown in the log, never swallowed. */
function runSafely(task, target) {
  startTask(task, target).catch((err) => {
    addEntry('error', `Could not run the task: ${err?.message || err}`);
    pageRelay.error(`Could not run the task: ${err?.message || err}`);
    setStatus(session?.waitingForUser ? 'waiting' : 'idle', '');
    bar?.setBusy(false);
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

/** Shows each field's error under it (and marks it invalid); ids maps a field to its input's id. */
function showFieldErrors(errors, ids) {
  let first = null;
  for (const [field, id] of Object.entries(ids)) {
    const input = $(id);
    const out = $(`${id}-error`);
    if (!input || !out) continue;
    const message = errors[field] || '';
    out.textContent = message;
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    if (message && !first) first = input;
  }
  // An error in a closed <details> is opened so it can be seen.
  if (first) {
    const d = first.closest('details');
    if (d) d.open = true;
  }
  return first;
}

const FORM_IDS = Object.fromEntries(['apiUrl', 'model', 'maxSteps', 'temperature', 'requestTimeoutMs', 'retryBaseMs', 'retryMaxMs', 'compactAtTokens', 'keepScreenshots'].map((k) => [k, k]));
const SETUP_IDS = { apiUrl: 'setup-apiUrl', model: 'setup-model' };

function tell(out, tone, text, { busy = false } = {}) {
  out.dataset.tone = tone;
  out.replaceChildren();
  if (busy) out.append(Object.assign(document.createElement('span'), { className: 'spinner', ariaHidden: 'true' }));
  out.append(Object.assign(document.createElement('span'), { textContent: text }));
}

/** Saves values when Run would accept them; otherwise shows why at each field and saves nothing. */
async function saveValues(values, ids, out) {
  const errors = settingsErrors(values);
  const first = showFieldErrors(errors, ids);
  if (first) {
    const n = Object.keys(errors).length;
    tell(out, 'error', `Not saved: ${n === 1 ? Object.values(errors)[0] : `${n} fields need a fix (marked above).`}`);
    first.focus();
    return false;
  }
  const n = normalizeSettings(values);
  await saveSettings({ ...n.settings, apiKey: values.apiKey });
  settings = await loadSettings();
  resolveBlocked('Resolved: the settings were saved since.');
  tell(out, 'ok', 'Saved.');
  return true;
}

async function onSave(ev) {
  ev.preventDefault();
  await saveValues(readForm(), FORM_IDS, $('settings-status'));
  showSetup();
}

// The browser's own name for a failed request (net::ERR_…), when chrome.webRequest is available.
const netErrors = new Map(); // url → {error, at}
if (chrome.webRequest?.onErrorOccurred) {
  chrome.webRequest.onErrorOccurred.addListener((d) => {
    if (d.initiator === location.origin || d.tabId === -1 || !d.initiator) netErrors.set(d.url, { error: d.error, at: Date.now() });
  }, { urls: ['http://*/*', 'https://*/*'] });
}
async function netError(url, since) {
  for (let i = 0; i < 10; i++) {
    const e = netErrors.get(url);
    if (e && e.at >= since) return e.error;
    await new Promise((r) => setTimeout(r, 30));
  }
  return undefined;
}

let testing = null; // AbortController of a connection test in flight

/** Test connection: bounded tries, each shown; the result names what failed. */
async function testConnection(values, ids, out, button) {
  if (testing) return;
  const v = validateTask({ settings: values });
  if (!v.ok) {
    showFieldErrors(v.field ? { [v.field]: v.message } : {}, ids);
    tell(out, 'error', v.message);
    return;
  }
  showFieldErrors({}, ids);
  if (v.settings.connection !== 'host' && !(await ensureHostPermission(v.originPattern))) {
    tell(out, 'error', validateTask({ settings: values, granted: false }).message);
    return;
  }
  testing = new AbortController();
  button.disabled = true;
  const perTry = Math.min(v.settings.requestTimeoutMs, 20000);
  tell(out, 'busy', `Testing ${new URL(v.endpoint).host}…`, { busy: true });
  try {
    const r = await modelFor(v.settings).testConnection({
      endpoint: v.endpoint, apiKey: values.apiKey, model: v.settings.model, loopback: v.loopback,
      origin: location.origin, timeoutMs: perTry, attempts: 3, retryDelayMs: 1000,
    }, {
      signal: testing.signal,
      netError,
      onProgress: (p) => {
        if (p.phase === 'sending') tell(out, 'busy', `Testing… attempt ${p.attempt} of ${p.of}`, { busy: true });
        else tell(out, 'busy', `Attempt ${p.attempt} of ${p.of} failed: ${p.text} Trying again…`, { busy: true });
      },
    });
    if (r.ok) {
      tell(out, 'ok', `Connected: the model answered ${JSON.stringify(r.content.slice(0, 80))} in ${(r.ms / 1000).toFixed(1)} s${r.usage ? ` (${r.usage.total_tokens ?? '?'} tokens)` : ''}.`);
      out.dataset.kind = 'ok';
    } else {
      tell(out, 'error', `${r.text}${r.attempts > 1 ? ` (${r.attempts} attempts)` : ''}`);
      out.dataset.kind = r.kind;
    }
  } catch (err) {
    tell(out, 'error', err?.code === 'stopped' ? 'Test stopped.' : `Connection failed: ${err?.message || err}`);
  } finally {
    testing = null;
    button.disabled = false;
  }
}

function onTestConnection() {
  return testConnection(readForm(), FORM_IDS, $('settings-status'), $('test-connection'));
}

/** The setup card's values over the stored settings. */
function readSetup() {
  return { ...settings, apiUrl: $('setup-apiUrl').value.trim(), model: $('setup-model').value.trim(), apiKey: $('setup-apiKey').value };
}

/** The first-run card: shown while no API URL and no model are set. */
function showSetup() {
  const need = needsSetup(settings);
  const card = $('setup');
  if (need && card.hidden) {
    $('setup-apiUrl').value = settings.apiUrl || '';
    $('setup-model').value = settings.model || '';
    $('setup-apiKey').value = settings.apiKey || '';
  }
  card.hidden = !need;
}

/** Shows what the host's workspace folder is (Upload/Download go through it). */
async function checkWorkspace() {
  const out = $('workspace-status');
  out.className = '';
  out.textContent = 'Checking…';
  try {
    const info = await hostRequest('workspace.info', {}, { timeoutMs: 15000 });
    out.dataset.configured = String(Boolean(info?.configured));
    if (info?.configured) {
      const free = Number.isFinite(info.freeBytes) ? `, ${(info.freeBytes / 2 ** 30).toFixed(1)} GiB free` : '';
      out.textContent = `Workspace folder: ${info.dir}${free}. The agent may upload files from it (up to 64 MiB each) and save downloads into it (up to 256 MiB; existing files are never overwritten).`;
    } else {
      out.textContent = `No workspace folder is set up${info?.error ? ` (${info.error})` : ''}. To let the agent upload and download files, add "workspace": {"dir": "/absolute/path/to/a/folder"} to the gnosis-host configuration file, then restart the browser. Choosing a folder in the browser (File System Access API) is not supported.`;
      out.className = 'warning';
    }
  } catch (err) {
    out.dataset.configured = 'false';
    out.textContent = `gnosis-host is not reachable (${err?.message || err}${err?.advice ? `; ${err.advice}` : ''}). Upload, Download and the "via gnosis-host" connection need it.`;
    out.className = 'error-text';
  }
}

// ---- start-up ------------------------------------------------------------------

/** Where the browser agent cannot run (Firefox: no chrome.debugger), says so instead of the agent's views. */
function showNeedsChromium() {
  $('needs-chromium').textContent = AGENT_NEEDS_CHROMIUM;
  $('needs-chromium').hidden = false;
  for (const id of ['chat-view', 'settings-view', 'page-assistant']) $(id).hidden = true;
  for (const id of ['show-chat', 'show-settings']) $(id).disabled = true;
  document.body.dataset.ready = 'true';
}

async function main() {
  if (!features(chrome).agent) return showNeedsChromium();
  $('show-chat').addEventListener('click', () => show('chat'));
  $('show-settings').addEventListener('click', () => { show('settings'); checkWorkspace(); });
  $('workspace-refresh').addEventListener('click', checkWorkspace);
  images = attachReferenceImages({ button: $('attach'), input: $('image-input'), pasteTarget: $('task'), list: $('attachments'), error: $('attach-error') });
  $('settings-form').addEventListener('submit', onSave);
  $('test-connection').addEventListener('click', onTestConnection);
  $('setup-test').addEventListener('click', () => testConnection(readSetup(), SETUP_IDS, $('setup-status'), $('setup-test')));
  $('setup-save').addEventListener('click', async () => {
    if (await saveValues(readSetup(), SETUP_IDS, $('setup-status'))) {
      fillForm(settings);
      $('setup').hidden = true;
      $('task').focus();
    }
  });
  $('setup-more').addEventListener('click', () => { show('settings'); checkWorkspace(); });
  $('retry-stop').addEventListener('click', () => $('stop').click());
  $('rememberKey').addEventListener('change', () => { $('remember-warning').hidden = !$('rememberKey').checked; });
  $('task-form').addEventListener('submit', (ev) => { ev.preventDefault(); runSafely($('task').value); });
  $('task').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); runSafely($('task').value); }
  });
  $('stop').addEventListener('click', () => {
    if (compacting) return compacting.abort();
    if (session?.running) return session.stop();
    // Waiting for an answer: Stop ends the task so the next input starts a new one
    // (recorded, so a reopened panel does not ask again).
    if (session?.waitingForUser) {
      session.stop();
      session.record({ kind: 'outcome', outcome: OUTCOME.STOPPED, text: 'the question was left unanswered' });
      showOutcome({ outcome: OUTCOME.STOPPED });
    }
  });
  chrome.storage.onChanged.addListener(async () => {
    settings = await loadSettings();
    // Keep the form in step with storage unless the user is editing it.
    if (!$('settings-view').contains(document.activeElement)) fillForm(settings);
    if (!$('setup').contains(document.activeElement)) showSetup();
  });
  [settings, template, windowId] = await Promise.all([
    loadSettings(),
    fetch(chrome.runtime.getURL('agent/prompts/venus_system.txt')).then((r) => r.text()),
    chrome.windows.getCurrent().then((w) => w.id),
  ]);
  fillForm(settings);
  showSetup();
  store = await openConversationStore({ indexedDB });
  bar = createConversationBar({
    store,
    els: {
      select: $('conversation'), newButton: $('new-conversation'), exportButton: $('export-conversation'),
      deleteButton: $('delete-conversation'), confirmBox: $('confirm-delete'), confirmYes: $('confirm-delete-yes'),
      confirmNo: $('confirm-delete-no'), past: $('past'),
    },
    onSwitch,
    onExport: (id) => exportConversation(id).catch((err) => addEntry('error', `Could not export: ${err?.message || err}`)),
    busy: () => Boolean(session?.running || compacting),
  });
  await bar.start();
  await connectPanel({
    sessionId,
    windowId,
    onMessage: (m) => {
      // The Page Assistant: a page's task runs like one typed here; its Stop is this Stop.
      if (m.type === 'pageTask' && pageRelay.accept(m.tabId, Boolean(session?.running || compacting))) runSafely(m.task, { tabId: m.tabId, reply: m.reply === true });
      if (m.type === 'pageStop' && pageRelay.owns(m.tabId)) $('stop').click();
    },
  });
  setStatus(session?.waitingForUser ? 'waiting' : 'idle', '');
  document.body.dataset.ready = 'true';
}

main();
