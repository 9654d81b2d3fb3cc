// The retry policy and the model client with an injected fetch and clock:
// no network, no real waiting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, parseRetryAfter, classifyStatus, isRetryableStatus } from '../../../agent/core/retry_policy.js';
import { createModelClient, createSseDecoder, abortableSleep } from '../../../agent/core/model_client.js';

test('retryable statuses', () => {
  for (const s of [408, 409, 425, 429, 500, 502, 503, 504, 599]) assert.equal(isRetryableStatus(s), true, s);
  for (const s of [200, 400, 401, 403, 404, 413, 422, 600]) assert.equal(isRetryableStatus(s), false, s);
});

test('classifyStatus: 403 from loopback explains, elsewhere fails', () => {
  assert.equal(classifyStatus(200, { loopback: false }), 'ok');
  assert.equal(classifyStatus(429, { loopback: false }), 'retry');
  assert.equal(classifyStatus(403, { loopback: true }), 'forbidden-local');
  assert.equal(classifyStatus(403, { loopback: false }), 'fail');
  assert.equal(classifyStatus(401, { loopback: true }), 'fail');
});

test('Retry-After: seconds, HTTP date, garbage', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test('backoff grows exponentially, stays within [exp/2, exp], and is capped', () => {
  const opts = { baseMs: 1000, maxMs: 30000 };
  assert.equal(backoffDelay(1, { ...opts, random: () => 0 }), 500);
  assert.equal(backoffDelay(1, { ...opts, random: () => 1 }), 1000);
  assert.equal(backoffDelay(3, { ...opts, random: () => 1 }), 4000);
  assert.equal(backoffDelay(10, { ...opts, random: () => 1 }), 30000);
  assert.equal(backoffDelay(1000, { ...opts, random: () => 0.5 }), 30000 * 0.75);
});

test('Retry-After wins over the exponential delay but not over the cap', () => {
  assert.equal(backoffDelay(1, { baseMs: 1000, maxMs: 30000, retryAfterMs: 7000 }), 7000);
  assert.equal(backoffDelay(1, { baseMs: 1000, maxMs: 30000, retryAfterMs: 3600000 }), 30000);
});

test('SSE decoder handles split events, CRLF and multi-line data', () => {
  const d = createSseDecoder();
  assert.deepEqual(d.push('data: {"a"'), []);
  assert.deepEqual(d.push(':1}\r\n\r\ndata: x\ndata: y\n\n: comment\n\ndata: [DONE]'), ['{"a":1}', 'x\ny']);
  assert.deepEqual(d.end(), ['[DONE]']);
});

// ---- the client -------------------------------------------------------------

function response(status, body, headers = {}) {
  return new Response(body, { status, headers });
}
const okJson = (content, usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }) =>
  response(200, JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage }), { 'content-type': 'application/json' });

function harness(replies) {
  const calls = [];
  const sleeps = [];
  const client = createModelClient({
    fetch: async (url, init) => {
      calls.push({ url, init, body: JSON.parse(init.body) });
      const r = replies[calls.length - 1];
      if (!r) throw new Error('no more scripted replies');
      return typeof r === 'function' ? r(init) : r;
    },
    sleep: async (ms, signal) => { sleeps.push(ms); if (signal?.aborted) throw new Error('aborted'); },
    now: () => 0,
    random: () => 1,
  });
  return { client, calls, sleeps };
}

const req = { endpoint: 'https://m.example/v1/chat/completions', apiKey: 'k', model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5, retryBaseMs: 100, retryMaxMs: 1000, timeoutMs: 5000 };

test('sends an OpenAI request with the key, asks for streaming, reads JSON and usage', async () => {
  const { client, calls } = harness([okJson('<action>Wait()</action>')]);
  const r = await client.complete(req);
  assert.equal(r.content, '<action>Wait()</action>');
  assert.deepEqual(r.usage, { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  assert.equal(calls[0].url, req.endpoint);
  assert.equal(calls[0].init.headers.Authorization, 'Bearer k');
  assert.deepEqual(calls[0].body, { model: 'm', messages: req.messages, temperature: 0.5, stream: true, stream_options: { include_usage: true } });
});

test('reads an SSE stream, reports deltas, keeps usage', async () => {
  const sse = [
    'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n',
    'data: {"choices":[{"delta":{"content":"<think>a"}}]}\n\ndata: {"choices":[{"delta":{"content":"</think>"}}]}\n\n',
    'data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}\n\ndata: [DONE]\n\n',
  ].join('');
  const { client } = harness([response(200, sse, { 'content-type': 'text/event-stream' })]);
  const deltas = [];
  const r = await client.complete(req, { onDelta: (p, full) => deltas.push(full) });
  assert.equal(r.content, '<think>a</think>');
  assert.deepEqual(deltas, ['<think>a', '<think>a</think>']);
  assert.equal(r.usage.total_tokens, 12);
});

test('retries 408/409/425/429/5xx, network errors and non-JSON bodies until success, honouring Retry-After', async () => {
  const { client, calls, sleeps } = harness([
    response(429, 'slow', { 'retry-after': '2' }),
    response(408, ''), response(409, ''), response(425, ''), response(500, ''), response(503, ''),
    () => { throw new TypeError('Failed to fetch'); },
    response(200, '<html>proxy</html>', { 'content-type': 'text/html' }),
    response(200, 'data: not json\n\n', { 'content-type': 'text/event-stream' }),
    okJson('done'),
  ]);
  const retries = [];
  const r = await client.complete(req, { onRetry: (i) => retries.push(i.reason) });
  assert.equal(r.content, 'done');
  assert.equal(r.attempts, 10);
  assert.equal(calls.length, 10);
  assert.deepEqual(sleeps, [1000, 200, 400, 800, 1000, 1000, 1000, 1000, 1000]);
  assert.deepEqual(retries, ['HTTP 429', 'HTTP 408', 'HTTP 409', 'HTTP 425', 'HTTP 500', 'HTTP 503',
    'network error: Failed to fetch', 'the success reply was not JSON', 'a streamed event was not JSON']);
});

test('a hung attempt times out, is aborted and retried', async () => {
  let n = 0;
  let firstAborted = false;
  const client = createModelClient({
    fetch: (url, init) => new Promise((resolve, reject) => {
      n++;
      if (n === 2) return resolve(okJson('ok'));
      init.signal.addEventListener('abort', () => { firstAborted = true; reject(new DOMException('aborted', 'AbortError')); });
    }),
    sleep: async () => {},
  });
  const reasons = [];
  const r = await client.complete({ ...req, timeoutMs: 20 }, { onRetry: (i) => reasons.push(i.reason) });
  assert.equal(r.content, 'ok');
  assert.equal(firstAborted, true);
  assert.deepEqual(reasons, ['no answer within 20 ms']);
});

test('Stop aborts the request in flight at once', async () => {
  let seenSignal;
  let fetched;
  const inFlight = new Promise((r) => { fetched = r; });
  const client = createModelClient({
    fetch: (url, init) => new Promise((resolve, reject) => {
      seenSignal = init.signal;
      init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      fetched();
    }),
  });
  const ctl = new AbortController();
  const p = client.complete(req, { signal: ctl.signal });
  await inFlight;
  ctl.abort();
  await assert.rejects(p, (e) => e.code === 'stopped');
  assert.equal(seenSignal.aborted, true);
});

// The wait is 60 s: a Stop that did not end it would hang this test past node:test's timeout.
test('Stop during the backoff wait ends at once', { timeout: 30_000 }, async () => {
  const client = createModelClient({ fetch: async () => response(503, '') });
  const ctl = new AbortController();
  const p = client.complete({ ...req, retryBaseMs: 60000, retryMaxMs: 60000 }, { signal: ctl.signal, onRetry: () => setTimeout(() => ctl.abort(), 5) });
  await assert.rejects(p, (e) => e.code === 'stopped');
});

test('abortableSleep resolves, or rejects when aborted', async () => {
  await abortableSleep(1);
  const ctl = new AbortController();
  ctl.abort();
  await assert.rejects(abortableSleep(10000, ctl.signal), (e) => e.code === 'stopped');
});

test('a 403 from a loopback server explains the origin setting instead of retrying', async () => {
  const { client, calls } = harness([response(403, 'Forbidden')]);
  await assert.rejects(client.complete({ ...req, loopback: true, origin: 'chrome-extension://abc' }), (e) => {
    assert.equal(e.code, 'forbidden_local');
    assert.match(e.message, /OLLAMA_ORIGINS=chrome-extension:\/\/abc/);
    return true;
  });
  assert.equal(calls.length, 1);
});

test('other 4xx fail at once with the server message', async () => {
  const { client, calls } = harness([response(401, '{"error":{"message":"bad key"}}')]);
  await assert.rejects(client.complete(req), (e) => e.code === 'http_401' && /bad key/.test(e.message));
  assert.equal(calls.length, 1);
});

test('a JSON reply without choices is an error, not a retry', async () => {
  const { client } = harness([response(200, '{"object":"error"}', { 'content-type': 'application/json' })]);
  await assert.rejects(client.complete(req), (e) => e.code === 'bad_reply');
});

test('a transport error marked retryable:false (the relay refusing a URL) fails at once; retryable ones are retried', async () => {
  const refused = Object.assign(new Error('the URL is not in relay.allow'), { code: 'FORBIDDEN', retryable: false, advice: 'add it to the host config' });
  const { client, calls, sleeps } = harness([() => { throw refused; }]);
  await assert.rejects(client.complete(req), (e) => e.code === 'relay_forbidden' && /relay\.allow/.test(e.message) && /host config/.test(e.message));
  assert.equal(calls.length, 1);
  assert.deepEqual(sleeps, []);
  const flaky = Object.assign(new Error('upstream reset'), { code: 'EXECUTION_ERROR', retryable: true });
  const h2 = harness([() => { throw flaky; }, response(200, '{"choices":[{"message":{"content":"ok"}}]}', { 'content-type': 'application/json' })]);
  const r = await h2.client.complete(req);
  assert.equal(r.content, 'ok');
  assert.equal(h2.calls.length, 2);
});

test('a retryable:false error while the body streams fails at once too', async () => {
  const broken = Object.assign(new Error('host went away'), { code: 'NOT_CONFIGURED', retryable: false });
  const body = new ReadableStream({ pull(c) { c.error(broken); } });
  const { client, calls } = harness([() => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })]);
  await assert.rejects(client.complete(req), (e) => e.code === 'relay_not_configured');
  assert.equal(calls.length, 1);
});

// ---- an error inside a 200 ------------------------------------------------

const stream = (...events) => response(200, events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join(''), { 'content-type': 'text/event-stream' });

test('an error event in a 200 stream: a request at fault ends at once with the server\'s words; a transient one is retried like a 5xx, its words in the retry', async () => {
  const cases = [
    // [what, events, final? (code), the words shown]
    ['OpenAI-style context length', [{ error: { message: 'This model\'s maximum context length is 8192 tokens', type: 'invalid_request_error', code: 'context_length_exceeded' } }], 'stream_error', /maximum context length is 8192 tokens/],
    ['a bare message about the context', [{ error: 'prompt is too long: 9000 tokens > 8192' }], 'stream_error', /prompt is too long/],
    ['vLLM\'s error object with a 400', [{ object: 'error', message: 'max_tokens must be at least 1', type: 'BadRequestError', code: 400 }], 'stream_error', /\(400\): max_tokens must be at least 1/],
    ['Anthropic-style overloaded', [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }], null, /the model server sent an error in its stream: Overloaded/],
    ['a 503 after some content', [{ choices: [{ delta: { content: '<think>' } }] }, { error: { message: 'backend restarting', code: 503 } }], null, /backend restarting/],
    ['an unknown error', [{ error: { message: 'something broke' } }], null, /something broke/],
  ];
  for (const [what, events, final, words] of cases) {
    const { client, calls } = harness([stream(...events), okJson('after')]);
    const retries = [];
    const run = client.complete(req, { onRetry: (i) => retries.push(i.reason) });
    if (final) {
      await assert.rejects(run, (e) => e.code === final && words.test(e.message), what);
      assert.equal(calls.length, 1, `${what}: no retry`);
    } else {
      assert.equal((await run).content, 'after', what);
      assert.equal(calls.length, 2, what);
      assert.equal(retries.length, 1, what);
      assert.match(retries[0], words, what);
      assert.doesNotMatch(retries[0], /without a reply/, what);
    }
  }
});

test('a server whose stream only ever says the context is too long is asked once, not forever', async () => {
  const tooLong = () => stream({ error: { message: 'context length exceeded', type: 'invalid_request_error' } });
  const { client, calls } = harness([tooLong(), tooLong(), tooLong()]);
  await assert.rejects(client.complete(req), (e) => e.code === 'stream_error' && /context length exceeded/.test(e.message));
  assert.equal(calls.length, 1);
});

test('an error body shaped {"detail": …} shows its text, not its braces', async () => {
  const cases = [
    ['{"detail":"Model venus-x not found"}', /HTTP 404 .*: Model venus-x not found$/],
    ['{"detail":[{"loc":["body","messages"],"msg":"field required","type":"missing"}]}', /HTTP 422: body\.messages: field required$/],
    ['{"detail":{"message":"quota used up"}}', /HTTP 402: quota used up$/],
  ];
  for (const [body, want] of cases) {
    const status = Number(/HTTP (\d+)/.exec(want.source)[1]);
    const { client } = harness([response(status, body, { 'content-type': 'application/json' })]);
    await assert.rejects(client.complete(req), (e) => want.test(e.message) && !/[{}]/.test(e.message), body);
  }
});
