// relay_client.js against the real gnosis-host (built from cmd/gnosis-host,
// spoken to through the extension's own NativeClient over the child's stdio)
// and real HTTP upstreams on 127.0.0.1, including a gateway that rejects
// chrome-extension:// origins.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ORIGIN, startRealHost } from '../../shared/real_host.js';
import { createRelayFetch, plainHeaders, RelayError } from '../../../agent/core/relay_client.js';
import { createModelClient } from '../../../agent/core/model_client.js';

const API_KEY = 'sk-relay-test-SECRET-7f3a';

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${server.address().port}` }));
  });
}

let dir;
let host;
let stopHost;
let gateway; // OpenAI-like, 403 for extension origins
let other; // not in relay.allow
let deadBase; // in relay.allow, nothing listening
let hostStderr = '';
const gatewayLog = [];
const gates = new Map(); // test name -> hooks the gateway calls

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gnosis-relay-'));
  gateway = await listen((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      gatewayLog.push({ url: req.url, method: req.method, headers: req.headers, body });
      if (String(req.headers.origin || '').startsWith('chrome-extension://')) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('origin not allowed');
        return;
      }
      const hook = gates.get(req.url.split('?')[0]);
      if (hook) return hook(req, res, body);
      res.writeHead(404).end('no such route');
    });
  });
  other = await listen((req, res) => res.writeHead(200).end('should never be reached'));
  const dead = await listen(() => {});
  deadBase = dead.base; // allowed, but nothing listens there once closed
  await new Promise((r) => dead.server.close(r));
  mkdirSync(join(dir, 'ws'));
  ({ host, stop: stopHost } = startRealHost({
    dir,
    config: {
      workspace: { dir: join(dir, 'ws') },
      relay: { allow: [`${gateway.base}/v1`, `${deadBase}/v1`] },
      log: { level: 'debug', file: join(dir, 'host.log') },
    },
    onStderr: (d) => { hostStderr += d; },
  }));
});

after(async () => {
  await stopHost?.();
  gateway.server.close();
  other.server.close();
  rmSync(dir, { recursive: true, force: true });
});

const relayFetch = () => createRelayFetch({ request: (m, p, o) => host.request(m, p, o) });

test('the gateway really refuses what a browser extension sends', async () => {
  gates.set('/v1/models', (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'));
  const direct = await fetch(`${gateway.base}/v1/models`, { headers: { Origin: ORIGIN } });
  assert.equal(direct.status, 403);
  const relayed = await relayFetch()(`${gateway.base}/v1/models`, { headers: { Origin: ORIGIN, Authorization: `Bearer ${API_KEY}` } });
  assert.equal(relayed.status, 200);
  assert.deepEqual(await relayed.json(), { data: [] });
  const seen = gatewayLog.at(-1);
  assert.equal(seen.headers.origin, undefined, 'the host sends no Origin');
  assert.equal(seen.headers.authorization, `Bearer ${API_KEY}`);
});

test('the model client streams a completion through the relay in place of fetch', async () => {
  const events = [
    { choices: [{ delta: { content: '<think>a button</think>' } }] },
    { choices: [{ delta: { content: '<action>Click(point=(5,6))</action>' } }] },
    { choices: [], usage: { prompt_tokens: 1234, completion_tokens: 20, total_tokens: 1254 } },
  ];
  const deltas = [];
  let next;
  gates.set('/v1/chat/completions', async (req, res, body) => {
    assert.equal(JSON.parse(body).stream, true);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of events) {
      res.write(`data: ${JSON.stringify(e)}\n\n`);
      // The next event is sent only after the previous one reached the model
      // client: the test fails if anything on the way buffers the body.
      if (e.usage) break;
      await new Promise((r) => { next = r; });
    }
    res.end('data: [DONE]\n\n');
  });
  const client = createModelClient({ fetch: relayFetch() });
  const out = await client.complete(
    { endpoint: `${gateway.base}/v1/chat/completions`, apiKey: API_KEY, model: 'venus', messages: [{ role: 'user', content: 'hi' }], temperature: 0, timeoutMs: 10000 },
    { onDelta: (piece) => { deltas.push(piece); next?.(); } },
  );
  assert.equal(out.content, '<think>a button</think><action>Click(point=(5,6))</action>');
  assert.deepEqual(out.usage, { prompt_tokens: 1234, completion_tokens: 20, total_tokens: 1254 });
  assert.deepEqual(deltas, ['<think>a button</think>', '<action>Click(point=(5,6))</action>']);
});

test('statuses and headers pass through, so the retry policy sees 429 and Retry-After', async () => {
  gates.set('/v1/slow/chat/completions', (req, res) => res.writeHead(429, { 'retry-after': '7', 'content-type': 'text/plain' }).end('busy'));
  const res = await relayFetch()(`${gateway.base}/v1/slow/chat/completions`, { method: 'POST', body: '{}' });
  assert.equal(res.status, 429);
  assert.equal(res.ok, false);
  assert.equal(res.headers.get('Retry-After'), '7');
  assert.equal(await res.text(), 'busy');
});

test('Stop aborts the upstream request mid-stream', async () => {
  let upstreamClosed;
  const closed = new Promise((r) => { upstreamClosed = r; });
  gates.set('/v1/hang/chat/completions', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"choices":[{"delta":{"content":"x"}}]}\n\n');
    res.on('close', upstreamClosed); // never ends on its own
  });
  const ac = new AbortController();
  const res = await relayFetch()(`${gateway.base}/v1/hang/chat/completions`, { method: 'POST', body: '{}', signal: ac.signal });
  const reader = res.body.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /"content":"x"/);
  ac.abort();
  await assert.rejects(reader.read(), { name: 'AbortError' });
  await Promise.race([closed, new Promise((_, rej) => setTimeout(() => rej(new Error('upstream request still open 5 s after Stop')), 5000))]);
  await assert.rejects(relayFetch()(`${gateway.base}/v1/models`, { signal: ac.signal }), { name: 'AbortError' }, 'an aborted signal never starts a request');
});

test('URLs outside relay.allow are FORBIDDEN and not retryable', async () => {
  for (const url of [`${other.base}/v1/chat/completions`, `${gateway.base}/admin`, `${gateway.base}/v1/../admin`, 'file:///etc/passwd']) {
    await assert.rejects(relayFetch()(url), (e) => e instanceof RelayError && e.code === 'FORBIDDEN' && e.retryable === false, url);
  }
});

test('an unreachable upstream is a retryable relay error', async () => {
  await assert.rejects(relayFetch()(`${deadBase}/v1/chat/completions`, { method: 'POST', body: '{}' }),
    (e) => e instanceof RelayError && e.code === 'EXECUTION_ERROR' && e.retryable === true && /request failed/.test(e.message));
});

test('the API key never lands in the host log', async () => {
  await relayFetch()(`${gateway.base}/v1/models?key=${API_KEY}`, { headers: { Authorization: `Bearer ${API_KEY}` } }).then((r) => r.text());
  await relayFetch()(`${other.base}/v1/models?key=${API_KEY}`, { headers: { Authorization: `Bearer ${API_KEY}` } }).catch(() => {});
  const log = readFileSync(join(dir, 'host.log'), 'utf8');
  assert.match(log, /relayed/, 'the log has relay entries (else this test proves nothing)');
  assert.ok(!log.includes(API_KEY), 'API key found in the host log');
  assert.ok(!hostStderr.includes(API_KEY), 'API key found in the host stderr');
});

test('binary mode carries any bytes exactly', async () => {
  const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 31) & 0xff));
  gates.set('/v1/blob/models', (req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes));
  const res = await createRelayFetch({ request: (m, p, o) => host.request(m, p, o), binary: true })(`${gateway.base}/v1/blob/models`);
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
});

test('plainHeaders accepts Headers, pairs and objects', () => {
  assert.deepEqual(plainHeaders(new Headers({ 'X-A': '1' })), { 'x-a': '1' });
  assert.deepEqual(plainHeaders([['X-B', 2]]), { 'X-B': '2' });
  assert.deepEqual(plainHeaders({ 'X-C': 3 }), { 'X-C': '3' });
  assert.deepEqual(plainHeaders(undefined), {});
});
