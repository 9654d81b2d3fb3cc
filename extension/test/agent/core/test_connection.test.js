// Test connection: each way a model server can be unreachable is named, the
// attempts are bounded, and progress is reported while it runs. The fetch and
// the sleep are injected; no network, no real waiting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createModelClient, describeFailure } from '../../../agent/core/model_client.js';

const REQ = { endpoint: 'https://api.example.com/v1/chat/completions', model: 'm', apiKey: 'k', timeoutMs: 1000 };

function client(fetch, extra = {}) {
  const slept = [];
  const c = createModelClient({ fetch, sleep: async (ms) => { slept.push(ms); }, ...extra });
  return { c, slept };
}

const failedFetch = () => Promise.reject(new TypeError('Failed to fetch'));
const reply = (status, body) => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const netCases = [
  ['net::ERR_CONNECTION_REFUSED', 'refused', /Connection refused/],
  ['net::ERR_NAME_NOT_RESOLVED', 'dns', /could not be resolved \(DNS\)/],
  ['net::ERR_CERT_AUTHORITY_INVALID', 'tls', /TLS: ERR_CERT_AUTHORITY_INVALID/],
  ['net::ERR_SSL_PROTOCOL_ERROR', 'tls', /secure connection failed/],
  ['net::ERR_CONNECTION_TIMED_OUT', 'timeout', /timed out/],
];
for (const [netError, kind, text] of netCases) {
  test(`a fetch failing with ${netError} is reported as ${kind} after one attempt`, async () => {
    let calls = 0;
    const { c, slept } = client(() => { calls++; return failedFetch(); });
    const r = await c.testConnection(REQ, { netError: async () => netError });
    assert.equal(r.ok, false);
    assert.equal(r.kind, kind);
    assert.match(r.text, text);
    assert.equal(calls, kind === 'timeout' ? 3 : 1, 'refused, DNS and TLS are not retried');
    assert.equal(slept.length, calls - 1);
  });
}

const relayCases = [
  ['dial tcp 127.0.0.1:9999: connect: connection refused', 'refused'],
  ['dial tcp: lookup nowhere.invalid: no such host', 'dns'],
  ['tls: failed to verify certificate: x509: certificate signed by unknown authority', 'tls'],
  ['context deadline exceeded (Client.Timeout exceeded while awaiting headers)', 'timeout'],
];
for (const [message, kind] of relayCases) {
  test(`the host relay's error "${message.slice(0, 40)}…" is reported as ${kind}`, () => {
    assert.equal(describeFailure({ message }).kind, kind);
  });
}

test('HTTP statuses are named with a hint, and only 408/429/5xx are tried again', async () => {
  for (const [status, kind, hint, tries] of [[401, 'http', /API key is missing, wrong or expired/, 1], [404, 'http', /no such endpoint or model/, 1], [503, 'busy', /server failed/, 3], [429, 'busy', /rate limited/, 3]]) {
    let calls = 0;
    const { c } = client(async () => { calls++; return reply(status, { error: { message: 'nope' } }); });
    const r = await c.testConnection(REQ);
    assert.equal(r.kind, kind, String(status));
    assert.equal(r.status, status);
    assert.match(r.text, new RegExp(`HTTP ${status}`));
    assert.match(r.text, hint);
    assert.match(r.text, /: nope\.$/);
    assert.equal(calls, tries, `attempts for ${status}`);
  }
});

// A try that outlived its timeout would hang this test: node:test's timeout fails it.
test('a server that never answers times out within the bound, attempts are capped, progress is reported', { timeout: 30_000 }, async () => {
  const hang = (_url, init) => new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
  const progress = [];
  const { c } = client(hang);
  const r = await c.testConnection({ ...REQ, timeoutMs: 60, attempts: 2 }, { onProgress: (p) => progress.push(`${p.phase} ${p.attempt}/${p.of}${p.kind ? ` ${p.kind}` : ''}`) });
  assert.equal(r.kind, 'timeout');
  assert.match(r.text, /No answer within 0.1 s/);
  assert.equal(r.attempts, 2);
  assert.deepEqual(progress, ['sending 1/2', 'retrying 1/2 timeout', 'sending 2/2']);
});

test('a plain "Failed to fetch" with no browser detail still says it could not be sent, once per attempt', async () => {
  const { c } = client(failedFetch);
  const r = await c.testConnection({ ...REQ, attempts: 2 });
  assert.equal(r.kind, 'network');
  assert.match(r.text, /could not be sent: Failed to fetch/);
  assert.equal(r.attempts, 2);
});

test('a working server answers with its content and the time it took', async () => {
  const { c } = client(async (_url, init) => {
    const body = JSON.parse(init.body);
    assert.equal(body.model, 'm');
    assert.equal(init.headers.Authorization, 'Bearer k');
    return reply(200, { choices: [{ message: { content: 'OK' } }], usage: { total_tokens: 9 } });
  });
  const r = await c.testConnection(REQ);
  assert.deepEqual({ ok: r.ok, content: r.content, attempts: r.attempts }, { ok: true, content: 'OK', attempts: 1 });
  assert.equal(typeof r.ms, 'number');
});

test('a 200 that is not a chat completion is a bad reply, not a success', async () => {
  const { c } = client(async () => reply(200, '<html>login</html>'));
  const r = await c.testConnection(REQ);
  assert.equal(r.kind, 'bad_reply');
  assert.match(r.text, /not with a chat completion/);
});

test('Stop ends a test at once', async () => {
  const ac = new AbortController();
  const { c } = client((_url, init) => new Promise((_, reject) => { init.signal.addEventListener('abort', () => reject(new Error('aborted'))); ac.abort(); }));
  await assert.rejects(c.testConnection(REQ, { signal: ac.signal }), { code: 'stopped' });
});

test('a budget bounds every try and the waits between: a server that never answers is reported within it', async () => {
  // The client's clock is this test's: a try that times out has taken exactly the time it was given,
  // a wait exactly its delay, so the figures do not depend on how busy the machine is.
  let clock = 0;
  const tries = [];
  const hang = (url, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => {
    clock += tries.at(-1);
    reject(new DOMException('aborted', 'AbortError'));
  }, { once: true }));
  const c = createModelClient({ fetch: hang, now: () => clock, sleep: async (ms) => { clock += ms; } });
  const r = await c.testConnection({ ...REQ, timeoutMs: 300, retryDelayMs: 20, budgetMs: 500, minTryMs: 50 }, { onProgress: (p) => { if (p.phase === 'sending') tries.push(p.timeoutMs); } });
  assert.equal(r.kind, 'timeout');
  assert.deepEqual(tries, [300, 180], 'the second try gets what is left of the budget after the first and the wait');
  assert.equal(r.attempts, 2, 'a third try would not fit');
  assert.equal(r.ms, 500, 'reported when the budget is spent');
});

test('Test connection can be cancelled at any moment: during a try and during the wait before the next', async () => {
  const hang = (url, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }));
  const c = createModelClient({ fetch: hang });
  const during = new AbortController();
  const p = c.testConnection({ ...REQ, timeoutMs: 5000, budgetMs: 24_000 }, { signal: during.signal });
  setTimeout(() => during.abort(), 20);
  await assert.rejects(p, { code: 'stopped' });
  const c2 = createModelClient({ fetch: async () => reply(503, 'busy') });
  const waiting = new AbortController();
  const p2 = c2.testConnection({ ...REQ, retryDelayMs: 10_000, budgetMs: 24_000 }, { signal: waiting.signal, onProgress: (x) => { if (x.phase === 'retrying') waiting.abort(); } });
  await assert.rejects(p2, { code: 'stopped' });
});
