// The Side Panel's settings: the Settings form and the first-run setup card
// (filled from storage, saved only when Run would accept the values, each
// error shown at its field), Test connection for either, and the check of
// gnosis-host's workspace folder. The rules are core/config_validation.js, the
// storage settings_store.js.

import { validateTask, normalizeSettings, needsSetup, settingsErrors, REMEMBER_KEY_WARNING } from '../core/config_validation.js';
import { loadSettings, saveSettings, ensureHostPermission } from './settings_store.js';
import { panel } from './sidepanel_state.js';
import { hostRequest, modelFor } from './sidepanel_models.js';
import { resolveBlocked } from './sidepanel_log.js';
import { show } from './sidepanel_views.js';
import { workspaceStatus } from '../core/workspace_status.js';
import { $ } from '../../shared/page.js';
import { METHODS } from '../../shared/core/methods.js';

const FIELDS = ['apiUrl', 'model', 'apiKey', 'rememberKey', 'maxSteps', 'temperature', 'requestTimeoutMs', 'retryBaseMs', 'retryMaxMs', 'coordinateMode', 'connection', 'compactAtTokens', 'keepScreenshots'];

export function fillForm(s) {
  for (const k of FIELDS) {
    const el = $(k);
    if (el.type === 'checkbox') el.checked = Boolean(s[k]);
    else el.value = s[k] ?? '';
  }
  showRemember('', Boolean(s.rememberKey));
  showConnection();
}

/** What each way of reaching the model means, under the Connection choice. */
const CONNECTION_HINTS = {
  direct: 'The extension calls the API URL itself.',
  host: 'gnosis-host makes the requests, for gateways that refuse requests from a browser extension.',
};

function showConnection() {
  $('connection-hint').textContent = CONNECTION_HINTS[$('connection').value] || '';
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
    // The reasons stand at their fields; the status line does not repeat them.
    const n = Object.keys(errors).filter((k) => ids[k]).length;
    tell(out, 'error', n > 1 ? `Not saved: ${n} fields need a fix (marked above).` : 'Not saved: fix the field marked above.');
    first.focus();
    return false;
  }
  const n = normalizeSettings(values);
  await saveSettings({ ...n.settings, apiKey: values.apiKey });
  panel.settings = await loadSettings();
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

/** Test connection reports within this, all tries and waits included. */
export const TEST_BUDGET_MS = 24_000;
/** Longest single try of Test connection (two fit the budget with the wait between). */
export const TEST_TRY_MS = 11_500;

let testing = null; // {abort: AbortController, button} of the connection test in flight
const TEST_BUTTONS = ['test-connection', 'setup-test'];

/** The Test buttons while a test runs: the one pressed reads Cancel, the other waits. */
function testingButtons(button) {
  for (const id of TEST_BUTTONS) {
    const b = $(id);
    b.textContent = b === button && testing ? 'Cancel' : 'Test connection';
    b.disabled = Boolean(testing) && b !== button;
    b.classList.toggle('testing', b === button && Boolean(testing));
  }
}

const secs = (ms) => `${Math.round(ms / 100) / 10} s`;

/**
 * Test connection: bounded tries, each shown, TEST_BUDGET_MS in all; the
 * button reads Cancel meanwhile and stops it at once. The result names what
 * failed. A value that would not be saved is shown at its field only.
 */
async function testConnection(values, ids, out, button) {
  if (testing) {
    if (testing.button === button) testing.abort.abort();
    return;
  }
  const errors = settingsErrors(values);
  if (showFieldErrors(errors, ids)) {
    const n = Object.keys(errors).filter((k) => ids[k]).length;
    tell(out, 'error', n > 1 ? `Not tested: ${n} fields need a fix (marked above).` : 'Not tested: fix the field marked above.');
    return;
  }
  const v = validateTask({ settings: values });
  if (!v.ok) {
    tell(out, 'error', v.message);
    return;
  }
  testing = { abort: new AbortController(), button };
  testingButtons(button);
  let asking = ''; // the host the browser is asking about access to, while it asks
  try {
    const host = new URL(v.endpoint).host;
    if (v.settings.connection !== 'host') {
      const onAsk = () => {
        asking = host;
        tell(out, 'busy', `Waiting for your answer: the browser asks whether Gnosis may reach ${host}. Allow it there and the test goes on; Cancel stops waiting.`, { busy: true });
      };
      if (!(await ensureHostPermission(v.originPattern, { onAsk, signal: testing.abort.signal }))) {
        tell(out, 'error', `Not tested: allow access to ${v.originPattern} so the extension can reach the model server (press Test connection again and accept the prompt).`);
        return;
      }
      asking = '';
    }
    tell(out, 'busy', `Testing ${host}…`, { busy: true });
    const r = await modelFor(v.settings).testConnection({
      endpoint: v.endpoint, apiKey: values.apiKey, model: v.settings.model, loopback: v.loopback,
      origin: location.origin, timeoutMs: Math.min(v.settings.requestTimeoutMs, TEST_TRY_MS), attempts: 3, retryDelayMs: 1000, budgetMs: TEST_BUDGET_MS,
    }, {
      signal: testing.abort.signal,
      netError,
      onProgress: (p) => {
        if (p.phase === 'sending') tell(out, 'busy', `Testing ${host}… attempt ${p.attempt}, up to ${secs(p.timeoutMs)} (the test ends within ${secs(TEST_BUDGET_MS)}).`, { busy: true });
        else tell(out, 'busy', `Attempt ${p.attempt} failed: ${p.text} Trying again…`, { busy: true });
      },
    });
    if (r.ok) {
      tell(out, 'ok', `Connected: the model answered ${JSON.stringify(r.content.slice(0, 80))} in ${(r.ms / 1000).toFixed(1)} s${r.usage ? ` (${r.usage.total_tokens ?? '?'} tokens)` : ''}.`);
      out.dataset.kind = 'ok';
    } else {
      tell(out, 'error', `${r.text}${r.attempts > 1 ? ` (${r.attempts} attempts, ${secs(r.ms)} in all)` : ''}`);
      out.dataset.kind = r.kind;
    }
  } catch (err) {
    const cancelled = asking ? `Test cancelled. The browser may still be asking about ${asking}: answer it there.` : 'Test cancelled.';
    tell(out, 'error', err?.code === 'stopped' ? cancelled : `Connection failed: ${err?.message || err}`);
    out.dataset.kind = err?.code === 'stopped' ? 'cancelled' : 'error';
  } finally {
    testing = null;
    testingButtons(button);
  }
}

/** The setup card's values over the stored settings. */
function readSetup() {
  return {
    ...panel.settings, apiUrl: $('setup-apiUrl').value.trim(), model: $('setup-model').value.trim(), apiKey: $('setup-apiKey').value,
    rememberKey: $('setup-rememberKey').checked,
  };
}

/** "Remember key on this device" with its warning, in the card or in Settings; the key field says where the key is kept. */
function showRemember(prefix, on) {
  $(`${prefix}rememberKey`).checked = on;
  $(`${prefix}remember-warning`).textContent = REMEMBER_KEY_WARNING;
  $(`${prefix}remember-warning`).hidden = !on;
  $(`${prefix}apiKey`).placeholder = on ? 'saved on this device' : 'kept for this browser session';
}

/**
 * The first-run card: shown while no API URL and no model are set, and
 * then alone (body[data-setup]: no task box, conversation bar or log yet).
 */
export function showSetup() {
  const { settings } = panel;
  const need = needsSetup(settings);
  const card = $('setup');
  if (need && card.hidden) {
    $('setup-apiUrl').value = settings.apiUrl || '';
    $('setup-model').value = settings.model || '';
    $('setup-apiKey').value = settings.apiKey || '';
    showRemember('setup-', Boolean(settings.rememberKey));
  }
  card.hidden = !need;
  document.body.dataset.setup = String(need);
}

/** Shows what the host's workspace folder is (Upload/Download go through it). */
async function checkWorkspace() {
  const out = $('workspace-status');
  out.className = '';
  out.textContent = 'Checking…';
  try {
    const info = await hostRequest(METHODS.WORKSPACE_INFO, {}, { timeoutMs: 15000 });
    out.dataset.configured = String(Boolean(info?.configured));
    const said = workspaceStatus(info);
    out.textContent = said.text;
    if (said.tone === 'warning') out.className = 'warning';
  } catch (err) {
    out.dataset.configured = 'false';
    out.textContent = `gnosis-host is not reachable (${err?.message || err}${err?.advice ? `; ${err.advice}` : ''}). Upload, Download and the "via gnosis-host" connection need it.`;
    out.className = 'error-text';
  }
}

/** The Settings view, with the workspace checked again. */
export function openSettings() {
  show('settings');
  checkWorkspace();
}

/**
 * Wires the Settings form, the setup card and the workspace check, and keeps
 * both forms in step with storage.
 */
export function wireSettings() {
  $('workspace-refresh').addEventListener('click', checkWorkspace);
  $('settings-form').addEventListener('submit', onSave);
  $('test-connection').addEventListener('click', () => testConnection(readForm(), FORM_IDS, $('settings-status'), $('test-connection')));
  $('setup-test').addEventListener('click', () => testConnection(readSetup(), SETUP_IDS, $('setup-status'), $('setup-test')));
  $('setup-save').addEventListener('click', async () => {
    if (await saveValues(readSetup(), SETUP_IDS, $('setup-status'))) {
      fillForm(panel.settings);
      showSetup();
      $('task').focus();
    }
  });
  $('setup-more').addEventListener('click', openSettings);
  $('connection').addEventListener('change', showConnection);
  for (const prefix of ['', 'setup-']) {
    $(`${prefix}rememberKey`).addEventListener('change', () => showRemember(prefix, $(`${prefix}rememberKey`).checked));
  }
  chrome.storage.onChanged.addListener(async () => {
    panel.settings = await loadSettings();
    // Keep the form in step with storage unless the user is editing it.
    if (!$('settings-view').contains(document.activeElement)) fillForm(panel.settings);
    if (!$('setup').contains(document.activeElement)) showSetup();
  });
}
