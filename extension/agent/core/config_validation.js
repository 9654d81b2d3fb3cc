// Settings rules for the browser agent, shared by every way of starting a task.
//
// The Side Panel and the Page Assistant both call validateTask before
// a run, so a missing URL, model or permission always produces the same
// actionable message. The API URL may be a `/v1` base or a full
// `/chat/completions` URL; plain http is allowed only for loopback hosts.
// Pure module, no chrome.* calls.

/** Defaults for every stored setting. Retry and timeout knobs are user settings too. */
export const DEFAULTS = Object.freeze({
  apiUrl: '',
  model: '',
  maxSteps: 100,
  temperature: 0.5,
  rememberKey: false,
  requestTimeoutMs: 120000,
  retryBaseMs: 1000,
  retryMaxMs: 30000,
  coordinateMode: 'normalized',
  connection: 'direct',
  compactAtTokens: 32000,
  keepScreenshots: 20,
});

/** How model requests travel: straight from the extension, or relayed by gnosis-host (relay.fetch). */
export const CONNECTIONS = Object.freeze(['direct', 'host']);

export const LIMITS = Object.freeze({
  maxSteps: [1, 200],
  temperature: [0, 2],
  requestTimeoutMs: [50, 600000],
  retryBaseMs: [1, 60000],
  retryMaxMs: [1, 600000],
  compactAtTokens: [1000, 2000000],
  keepScreenshots: [0, 200],
});

/** Stable codes for why a task cannot start. */
export const CODES = Object.freeze({
  MISSING_API_URL: 'missing_api_url',
  INVALID_API_URL: 'invalid_api_url',
  INSECURE_API_URL: 'insecure_api_url',
  MISSING_MODEL: 'missing_model',
  INVALID_SETTING: 'invalid_setting',
  MISSING_PERMISSION: 'missing_permission',
  NO_TASK: 'no_task',
});

/** True for hosts that never leave this machine. */
export function isLoopbackHost(hostname) {
  const h = String(hostname || '').toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Turns what the user typed into the Chat Completions endpoint.
 * @returns {{endpoint:string, originPattern:string, loopback:boolean} | {code:string, error:string}}
 */
export function normalizeApiUrl(input) {
  const text = String(input ?? '').trim();
  if (text === '') return { code: CODES.MISSING_API_URL, error: 'the API URL is empty' };
  let url;
  try {
    url = new URL(text);
  } catch {
    return { code: CODES.INVALID_API_URL, error: `the API URL ${JSON.stringify(text)} is not a valid URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { code: CODES.INVALID_API_URL, error: 'the API URL must start with https:// (or http:// for a server on this machine)' };
  }
  if (url.username || url.password) return { code: CODES.INVALID_API_URL, error: 'put the API key in the API key field, not in the URL' };
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    return { code: CODES.INSECURE_API_URL, error: 'plain http:// is allowed only for a server on this machine (localhost, 127.0.0.1, [::1]); use https://' };
  }
  url.hash = '';
  let path = url.pathname.replace(/\/+$/, '');
  if (!/\/chat\/completions$/.test(path)) path += '/chat/completions';
  url.pathname = path;
  return { endpoint: url.href, originPattern: `${url.protocol}//${url.hostname}/*`, loopback };
}

/**
 * Checks and fills the numeric settings.
 * @returns {{settings:object} | {code:string, error:string}}
 */
export function normalizeSettings(raw) {
  const s = { ...DEFAULTS, ...(raw || {}) };
  for (const [key, [min, max]] of Object.entries(LIMITS)) {
    const v = typeof s[key] === 'string' && s[key].trim() !== '' ? Number(s[key]) : s[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      return { code: CODES.INVALID_SETTING, field: key, error: `${LABELS[key]} must be a number from ${min} to ${max}` };
    }
    if ((key === 'maxSteps' || key === 'keepScreenshots' || key === 'compactAtTokens') && !Number.isInteger(v)) return { code: CODES.INVALID_SETTING, field: key, error: `${LABELS[key]} must be a whole number` };
    s[key] = v;
  }
  s.apiUrl = String(s.apiUrl || '').trim();
  s.model = String(s.model || '').trim();
  s.rememberKey = Boolean(s.rememberKey);
  if (s.coordinateMode !== 'normalized' && s.coordinateMode !== 'absolute') s.coordinateMode = 'normalized';
  if (!CONNECTIONS.includes(s.connection)) s.connection = 'direct';
  return { settings: s };
}

const LABELS = {
  maxSteps: 'Maximum steps',
  temperature: 'Temperature',
  requestTimeoutMs: 'Request timeout (ms)',
  retryBaseMs: 'Retry base delay (ms)',
  retryMaxMs: 'Retry maximum delay (ms)',
  compactAtTokens: 'Compact the context above (tokens)',
  keepScreenshots: 'Screenshots kept per task',
};

/**
 * The one check before any task. `granted` answers whether the host
 * permission for the endpoint is held (undefined: not checked yet).
 * @returns {{ok:true, settings:object, endpoint:string, originPattern:string, loopback:boolean}
 *   | {ok:false, code:string, message:string, fix:'settings'|'permission'|'task'}}
 */
export function validateTask({ task, settings, granted }) {
  if (task !== undefined && String(task).trim() === '') {
    return blocked(CODES.NO_TASK, 'Type a task first.', 'task');
  }
  const n = normalizeSettings(settings);
  if (n.error) return blocked(n.code, `${n.error}. Open Settings to fix it.`, 'settings', n.field);
  const u = normalizeApiUrl(n.settings.apiUrl);
  if (u.error) {
    const lead = u.code === CODES.MISSING_API_URL ? 'Set the API URL' : 'Fix the API URL';
    return blocked(u.code, `${lead} in Settings: ${u.error}.`, 'settings', 'apiUrl');
  }
  if (!n.settings.model) return blocked(CODES.MISSING_MODEL, 'Set the model in Settings: the name of a model that accepts images.', 'settings', 'model');
  if (granted === false) {
    return blocked(CODES.MISSING_PERMISSION, `Allow access to ${u.originPattern} so the extension can reach the model server (click Run again and accept the prompt).`, 'permission');
  }
  return { ok: true, settings: n.settings, endpoint: u.endpoint, originPattern: u.originPattern, loopback: u.loopback };
}

function blocked(code, message, fix, field) {
  return field ? { ok: false, code, message, fix, field } : { ok: false, code, message, fix };
}

/**
 * Every reason the Settings form cannot be saved, per field, by the same rules
 * validateTask applies before a run (so nothing Save accepts is refused by
 * Run for its settings). An empty object means the form is valid.
 * @returns {Object<string, string>} field id → message
 */
export function settingsErrors(raw) {
  const errors = {};
  const s = { ...DEFAULTS, ...(raw || {}) };
  for (const key of Object.keys(LIMITS)) {
    const n = normalizeSettings({ ...DEFAULTS, [key]: s[key] });
    if (n.error) errors[key] = `${n.error}.`;
  }
  const u = normalizeApiUrl(s.apiUrl);
  if (u.error) errors.apiUrl = `${u.error[0].toUpperCase()}${u.error.slice(1)}.`;
  if (!String(s.model ?? '').trim()) errors.model = 'Enter the name of a model that accepts images.';
  return errors;
}

/** True when the settings hold no API URL and no model yet: the panel shows its setup card. */
export function needsSetup(settings) {
  return !String(settings?.apiUrl ?? '').trim() && !String(settings?.model ?? '').trim();
}

/** The warning shown next to "Remember key on this device". */
export const REMEMBER_KEY_WARNING = 'The key will be saved in this browser profile (chrome.storage.local) and survive restarts. An extension cannot protect a secret the way a server can: use this only on a personal device, ideally with a key limited to this use.';
