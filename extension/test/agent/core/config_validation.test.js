// Settings validation and API URL normalisation: the one message every entry
// point shows when a task cannot start.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeApiUrl, normalizeSettings, validateTask, isLoopbackHost, CODES, DEFAULTS } from '../../../agent/core/config_validation.js';

const urls = [
  ['https://api.example.com/v1', 'https://api.example.com/v1/chat/completions', 'https://api.example.com/*', false],
  ['https://api.example.com/v1/', 'https://api.example.com/v1/chat/completions', 'https://api.example.com/*', false],
  ['  https://api.example.com/v1/chat/completions  ', 'https://api.example.com/v1/chat/completions', 'https://api.example.com/*', false],
  ['https://api.example.com/v1/chat/completions/', 'https://api.example.com/v1/chat/completions', 'https://api.example.com/*', false],
  ['https://gw.example.com:8443/openai/v1?api-version=2', 'https://gw.example.com:8443/openai/v1/chat/completions?api-version=2', 'https://gw.example.com/*', false],
  ['https://api.example.com', 'https://api.example.com/chat/completions', 'https://api.example.com/*', false],
  ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1/chat/completions', 'http://127.0.0.1/*', true],
  ['http://localhost:8000/v1#frag', 'http://localhost:8000/v1/chat/completions', 'http://localhost/*', true],
  ['http://[::1]:8080/v1', 'http://[::1]:8080/v1/chat/completions', 'http://[::1]/*', true],
  ['https://127.0.0.1/v1', 'https://127.0.0.1/v1/chat/completions', 'https://127.0.0.1/*', true],
];
for (const [input, endpoint, originPattern, loopback] of urls) {
  test(`normalises ${input}`, () => {
    assert.deepEqual(normalizeApiUrl(input), { endpoint, originPattern, loopback });
  });
}

const badUrls = [
  ['', CODES.MISSING_API_URL],
  ['   ', CODES.MISSING_API_URL],
  ['api.example.com/v1', CODES.INVALID_API_URL],
  ['ftp://example.com/v1', CODES.INVALID_API_URL],
  ['https://user:pw@example.com/v1', CODES.INVALID_API_URL],
  ['http://example.com/v1', CODES.INSECURE_API_URL],
  ['http://192.168.1.5:11434/v1', CODES.INSECURE_API_URL],
  ['http://127.0.0.1.example.com/v1', CODES.INSECURE_API_URL],
];
for (const [input, code] of badUrls) {
  test(`rejects API URL ${JSON.stringify(input)} with ${code}`, () => {
    assert.equal(normalizeApiUrl(input).code, code);
  });
}

test('loopback hosts', () => {
  for (const h of ['localhost', 'LOCALHOST', 'a.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['example.com', '128.0.0.1', '10.0.0.1', 'localhost.com', '127.0.0.1.nip.io']) assert.equal(isLoopbackHost(h), false, h);
});

test('defaults: 100 steps, temperature 0.5, key not remembered', () => {
  const { settings } = normalizeSettings({});
  assert.equal(settings.maxSteps, 100);
  assert.equal(settings.temperature, 0.5);
  assert.equal(settings.rememberKey, false);
  assert.deepEqual(settings, { ...DEFAULTS });
});

const ranges = [
  [{ maxSteps: 0 }, /Maximum steps must be a number from 1 to 200/],
  [{ maxSteps: 201 }, /from 1 to 200/],
  [{ maxSteps: 2.5 }, /whole number/],
  [{ maxSteps: 'x' }, /from 1 to 200/],
  [{ temperature: -0.1 }, /Temperature must be a number from 0 to 2/],
  [{ temperature: 2.01 }, /from 0 to 2/],
  [{ temperature: NaN }, /from 0 to 2/],
  [{ requestTimeoutMs: 10 }, /Request timeout/],
  [{ retryBaseMs: 0 }, /Retry base delay/],
];
for (const [input, re] of ranges) {
  test(`rejects ${JSON.stringify(input)}`, () => {
    const r = normalizeSettings(input);
    assert.equal(r.code, CODES.INVALID_SETTING);
    assert.match(r.error, re);
  });
}

test('range edges and numeric strings are accepted', () => {
  assert.equal(normalizeSettings({ maxSteps: 1, temperature: 0 }).settings.maxSteps, 1);
  assert.equal(normalizeSettings({ maxSteps: '200', temperature: '2' }).settings.temperature, 2);
});

const good = { apiUrl: 'https://api.example.com/v1', model: 'venus' };
const cases = [
  ['no task', { task: '  ', settings: good }, CODES.NO_TASK, 'task', /Type a task first/],
  ['no URL', { task: 't', settings: { model: 'm' } }, CODES.MISSING_API_URL, 'settings', /^Set the API URL in Settings/],
  ['bad URL', { task: 't', settings: { ...good, apiUrl: 'nope' } }, CODES.INVALID_API_URL, 'settings', /^Fix the API URL in Settings/],
  ['insecure URL', { task: 't', settings: { ...good, apiUrl: 'http://example.com' } }, CODES.INSECURE_API_URL, 'settings', /only for a server on this machine/],
  ['no model', { task: 't', settings: { ...good, model: ' ' } }, CODES.MISSING_MODEL, 'settings', /Set the model in Settings/],
  ['bad number', { task: 't', settings: { ...good, maxSteps: 500 } }, CODES.INVALID_SETTING, 'settings', /Open Settings/],
  ['no permission', { task: 't', settings: good, granted: false }, CODES.MISSING_PERMISSION, 'permission', /Allow access to https:\/\/api\.example\.com\/\*/],
];
for (const [name, input, code, fix, re] of cases) {
  test(`validateTask: ${name}`, () => {
    const r = validateTask(input);
    assert.equal(r.ok, false);
    assert.equal(r.code, code);
    assert.equal(r.fix, fix);
    assert.match(r.message, re);
  });
}

test('validateTask passes a complete configuration with the endpoint', () => {
  const r = validateTask({ task: 'do it', settings: { ...good, temperature: 1 }, granted: true });
  assert.equal(r.ok, true);
  assert.equal(r.endpoint, 'https://api.example.com/v1/chat/completions');
  assert.equal(r.originPattern, 'https://api.example.com/*');
  assert.equal(r.settings.temperature, 1);
});

test('connection is direct or host; anything else falls back to direct', () => {
  assert.equal(normalizeSettings({}).settings.connection, 'direct');
  assert.equal(normalizeSettings({ connection: 'host' }).settings.connection, 'host');
  assert.equal(normalizeSettings({ connection: 'proxy' }).settings.connection, 'direct');
});
