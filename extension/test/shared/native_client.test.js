import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NativeClient, transportError } from '../../shared/native_client.js';
import { TRANSPORT_CODES } from '../../shared/core/codes.js';

// A fake Port with the chrome.runtime.Port surface the client uses.
function fakePort() {
  const port = {
    sent: [],
    msgListeners: [],
    discListeners: [],
    disconnected: false,
    postMessage(m) {
      if (port.disconnected) throw new Error('Attempting to use a disconnected port object');
      port.sent.push(structuredClone(m));
    },
    disconnect() { port.disconnected = true; },
    onMessage: { addListener: (f) => port.msgListeners.push(f) },
    onDisconnect: { addListener: (f) => port.discListeners.push(f) },
    reply(m) { for (const f of port.msgListeners) f(m); },
    error: null,
    // drop disconnects from the browser's side; error is what Firefox puts in
    // port.error (Chrome leaves it unset and fills runtime.lastError).
    drop(error = null) { port.disconnected = true; port.error = error; for (const f of port.discListeners) f(port); },
  };
  return port;
}

// Manual timers so tests never wait on the clock.
function fakeTimers() {
  let now = 0;
  let seq = 0;
  const timers = new Map();
  return {
    setTimeout(f, ms) { timers.set(++seq, { f, at: now + ms }); return seq; },
    clearTimeout(t) { timers.delete(t); },
    advance(ms) {
      now += ms;
      for (const [t, { f, at }] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (at <= now && timers.has(t)) { timers.delete(t); f(); }
      }
    },
    pending: () => [...timers.values()].map((t) => t.at - now),
  };
}

function setup(opts = {}) {
  const ports = [];
  let lastError;
  const timers = fakeTimers();
  const client = new NativeClient(() => { const p = fakePort(); ports.push(p); return p; }, {
    probe: false, timers, lastError: () => lastError, ...opts,
  });
  return { client, ports, timers, setLastError: (m) => { lastError = m; } };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a request gets an id and resolves with the matching reply, ok or not', async () => {
  const { client, ports } = setup();
  const a = client.request('health');
  const b = client.request('execute', { capability: 'computer.click', arguments: { x: 1 } });
  assert.equal(ports.length, 1, 'one port for every request');
  const [ma, mb] = ports[0].sent;
  assert.deepEqual(ma, { id: 1, method: 'health' });
  assert.deepEqual(mb, { id: 2, method: 'execute', params: { capability: 'computer.click', arguments: { x: 1 } } });
  ports[0].reply({ id: 2, ok: false, error: true, code: 'INVALID_ARGUMENTS', message: 'x' });
  ports[0].reply({ id: 1, ok: true, status: 'ok' });
  assert.deepEqual(await b, { id: 2, ok: false, error: true, code: 'INVALID_ARGUMENTS', message: 'x' });
  assert.deepEqual(await a, { id: 1, ok: true, status: 'ok' });
  assert.equal(client.status().state, 'connected');
});

test('chunked replies are reassembled in order', async () => {
  const { client, ports } = setup();
  const p = client.request('capabilities.list');
  const text = JSON.stringify({ id: 1, ok: true, capabilities: [{ name: 'computer.click', description: 'é'.repeat(50) }] });
  const parts = [text.slice(0, 10), text.slice(10, 40), text.slice(40)];
  parts.forEach((data, i) => ports[0].reply({ id: 1, chunk: i, chunks: 3, data }));
  assert.deepEqual(await p, JSON.parse(text));
});

test('chunks out of order fail the request with HOST_ERROR', async () => {
  const { client, ports } = setup();
  const p = client.request('capabilities.list');
  ports[0].reply({ id: 1, chunk: 1, chunks: 2, data: '}' });
  await assert.rejects(p, { code: TRANSPORT_CODES.HOST_ERROR });
});

test('a timeout rejects with TIMEOUT and sends cancel for that id', async () => {
  const { client, ports, timers } = setup();
  const p = client.request('execute', { capability: 'computer.slow' }, { timeoutMs: 1000 });
  timers.advance(999);
  await tick();
  timers.advance(1);
  await assert.rejects(p, (err) => err.code === 'TIMEOUT' && typeof err.advice === 'string');
  assert.deepEqual(ports[0].sent.at(-1), { id: 'cancel-1', method: 'cancel', params: { id: 1 } });
  ports[0].reply({ id: 1, ok: false, code: 'CANCELLED' }); // late reply is ignored
});

test('aborting a request sends cancel and rejects with CANCELLED', async () => {
  const { client, ports } = setup();
  const ac = new AbortController();
  const p = client.request('execute', { capability: 'computer.slow' }, { signal: ac.signal });
  ac.abort();
  await assert.rejects(p, { code: 'CANCELLED' });
  assert.equal(ports[0].sent.at(-1).method, 'cancel');
});

test('events with a request id go to that request, others to global listeners', async () => {
  const { client, ports } = setup();
  const mine = [];
  const global = [];
  client.on('capabilities.changed', (e) => global.push(e));
  const p = client.request('agent.step', {}, { onEvent: (e) => mine.push(e) });
  ports[0].reply({ id: 1, event: 'progress', n: 1 });
  ports[0].reply({ event: 'capabilities.changed', capabilities: 12 });
  ports[0].reply({ id: 1, ok: true });
  await p;
  assert.deepEqual(mine, [{ id: 1, event: 'progress', n: 1 }]);
  assert.deepEqual(global, [{ event: 'capabilities.changed', capabilities: 12 }]);
});

test('replies with id null are reported as orphans', () => {
  const { client, ports } = setup();
  const orphans = [];
  client.on('orphan', (m) => orphans.push(m));
  client.connect();
  ports[0].reply({ id: null, ok: false, code: 'INVALID_REQUEST' });
  assert.deepEqual(orphans, [{ id: null, ok: false, code: 'INVALID_REQUEST' }]);
});

test("the browser's disconnect messages become codes with advice", () => {
  const table = [
    ['Specified native messaging host not found.', 'HOST_NOT_FOUND', /not installed.*moved or deleted.*install/i],
    ['Access to the specified native messaging host is forbidden.', 'HOST_FORBIDDEN', /allowed_origins/],
    ['Native host has exited.', 'HOST_EXITED', /gnosis-host doctor/],
    ['Error when communicating with the native messaging host.', 'HOST_ERROR', /doctor/],
    [undefined, 'HOST_EXITED', /doctor/],
    // Firefox (NativeMessaging.sys.mjs): one message for a missing manifest
    // and for one that does not list the add-on.
    ['No such native application com.gnosis.host', 'HOST_NOT_FOUND', /allowed_extensions.*gnosis-host install/],
    ['This extension does not have permission to use native application com.gnosis.host', 'HOST_FORBIDDEN', /allowed_extensions/],
    ['An unexpected error occurred', 'HOST_ERROR', /Firefox could not start the host.*missing or not executable.*doctor/],
    ['Native application tried to send a message of 2000000 bytes, which exceeds the limit of 1048576 bytes.', 'HOST_ERROR', /not the protocol/],
  ];
  for (const [message, code, advice] of table) {
    const got = transportError(message);
    assert.equal(got.code, code, message);
    assert.match(got.advice, advice, message);
  }
});

test('a disconnect fails pending requests with the mapped code and reconnects with capped backoff', async () => {
  const { client, ports, timers, setLastError } = setup({ backoffMs: 100, maxBackoffMs: 400 });
  const statuses = [];
  client.on('status', (s) => statuses.push(s.state));
  const p = client.request('health');
  setLastError('Specified native messaging host not found.');
  ports[0].drop();
  await assert.rejects(p, (err) => err.code === 'HOST_NOT_FOUND' && /install/i.test(err.advice));
  assert.equal(client.status().error.code, 'HOST_NOT_FOUND');
  assert.deepEqual(timers.pending(), [100]);
  const delays = [];
  for (let i = 0; i < 4; i++) {
    const [d] = timers.pending();
    delays.push(d);
    timers.advance(d);
    ports.at(-1).drop();
  }
  assert.deepEqual(delays, [100, 200, 400, 400]);
  assert.equal(ports.length, 5);
  // The host comes back: first message resets the backoff.
  timers.advance(timers.pending()[0]);
  setLastError('Native host has exited.');
  ports.at(-1).reply({ event: 'provider.state', name: 'munim', state: 'ready' });
  assert.equal(client.status().state, 'connected');
  ports.at(-1).drop();
  assert.deepEqual(timers.pending(), [100]);
  assert.ok(statuses.includes('connected') && statuses.includes('error'));
});

test('a request after a disconnect connects again at once', async () => {
  const { client, ports, setLastError } = setup({ autoReconnect: false });
  client.connect();
  setLastError('Native host has exited.');
  ports[0].drop();
  const p = client.request('health');
  assert.equal(ports.length, 2);
  ports[1].reply({ id: 1, ok: true });
  assert.deepEqual(await p, { id: 1, ok: true });
});

test('a factory that throws rejects with a transport error', async () => {
  const client = new NativeClient(() => { throw new Error('Specified native messaging host not found.'); }, { probe: false });
  await assert.rejects(client.request('health'), { code: 'HOST_NOT_FOUND' });
  assert.equal(client.status().state, 'error');
});

test('the connect probe records health in the status', async () => {
  const { client, ports } = setup({ probe: true });
  client.connect();
  assert.deepEqual(ports[0].sent[0], { id: 1, method: 'health' });
  ports[0].reply({ id: 1, ok: true, version: '1.2.3', capabilities: 4, providers: [] });
  await tick();
  assert.equal(client.status().health.version, '1.2.3');
});

test('close fails pending requests and stops reconnecting', async () => {
  const { client, timers } = setup();
  const p = client.request('health');
  client.close();
  await assert.rejects(p, { code: 'HOST_EXITED' });
  assert.deepEqual(timers.pending(), []);
  assert.equal(client.status().state, 'idle');
});

test("with no host registered, Chrome's lastError and Firefox's port.error both give HOST_NOT_FOUND", async () => {
  const browsers = [
    { name: 'chrome', lastError: 'Specified native messaging host not found.', portError: null, advice: /gnosis-host install/ },
    { name: 'firefox', lastError: undefined, portError: new Error('No such native application com.gnosis.host'), advice: /allowed_extensions/ },
  ];
  for (const b of browsers) {
    const { client, ports, setLastError } = setup({ autoReconnect: false });
    const p = client.request('health');
    setLastError(b.lastError);
    ports[0].drop(b.portError);
    await assert.rejects(p, (err) => err.code === 'HOST_NOT_FOUND' && b.advice.test(err.advice), b.name);
    assert.equal(client.status().error.code, 'HOST_NOT_FOUND', b.name);
  }
});

test("Firefox's port.error wins over a stale lastError, and a clean exit (no error) is HOST_EXITED", async () => {
  const { client, ports, setLastError } = setup({ autoReconnect: false });
  setLastError('Native host has exited.');
  const first = client.request('health');
  ports[0].drop(new Error('No such native application com.gnosis.host'));
  await assert.rejects(first, { code: 'HOST_NOT_FOUND' });
  setLastError(undefined);
  const second = client.request('health');
  ports[1].drop(null);
  await assert.rejects(second, { code: 'HOST_EXITED' });
});

// The handshake: with a compatibility check, nothing but health reaches a host that does not fit.
const fitsTwo = (h) => (h.protocol === 2 ? null : { message: `protocol ${h.protocol ?? 1}`, advice: 'update' });

test('with a compatibility check, a request waits for the connection\'s health and goes out when the host fits', async () => {
  const { client, ports } = setup({ probe: true, compatible: fitsTwo });
  const p = client.request('capabilities.list');
  await tick();
  assert.deepEqual(ports[0].sent, [{ id: 1, method: 'health' }], 'only the probe until health answers');
  ports[0].reply({ id: 1, ok: true, protocol: 2, providers: [] });
  await tick();
  assert.deepEqual(ports[0].sent.map((m) => m.method), ['health', 'capabilities.list']);
  ports[0].reply({ id: 2, ok: true, capabilities: [] });
  assert.deepEqual(await p, { id: 2, ok: true, capabilities: [] });
  // Health known: the next request goes out at once, without another health.
  const q = client.request('policy.get', { origin: 'https://x.example' });
  await tick();
  assert.deepEqual(ports[0].sent.map((m) => m.method), ['health', 'capabilities.list', 'policy.get']);
  ports[0].reply({ id: 3, ok: true });
  await q;
});

test('a host that does not fit gets nothing but health: requests reject with HOST_INCOMPATIBLE, unsent', async () => {
  const { client, ports } = setup({ probe: true, compatible: fitsTwo });
  const p = client.request('execute', { capability: 'computer.click', arguments: {} });
  ports[0].reply({ id: 1, ok: true, version: '0.0.9', providers: [] });
  await assert.rejects(p, (err) => err.code === 'HOST_INCOMPATIBLE' && /^execute was not sent: protocol 1$/.test(err.message) && err.advice === 'update');
  await assert.rejects(client.request('providers.set', { name: 'x' }), { code: 'HOST_INCOMPATIBLE' });
  assert.deepEqual(ports[0].sent.map((m) => m.method), ['health']);
  // health itself still goes out, so the pages can say which side is older.
  const h = client.health();
  ports[0].reply({ id: 2, ok: true, version: '0.0.9', providers: [] });
  assert.equal((await h).version, '0.0.9');
});

test('after a reconnect to an updated host, requests go out again', async () => {
  const { client, ports, timers } = setup({ probe: true, compatible: fitsTwo });
  client.connect();
  ports[0].reply({ id: 1, ok: true, providers: [] });
  await assert.rejects(client.request('capabilities.list'), { code: 'HOST_INCOMPATIBLE' });
  ports[0].drop();
  timers.advance(60_000);
  const p = client.request('capabilities.list');
  await tick();
  const probe = ports[1].sent.find((m) => m.method === 'health');
  ports[1].reply({ id: probe.id, ok: true, protocol: 2, providers: [] });
  await tick();
  const sent = ports[1].sent.find((m) => m.method === 'capabilities.list');
  assert.ok(sent, 'sent to the updated host');
  ports[1].reply({ id: sent.id, ok: true, capabilities: [] });
  await p;
});

test("a gated request's own timeout and abort hold while it waits for health", async () => {
  const { client, timers } = setup({ probe: true, compatible: fitsTwo });
  const slow = client.request('capabilities.list', undefined, { timeoutMs: 500 });
  await tick();
  timers.advance(500);
  await assert.rejects(slow, { code: 'TIMEOUT' });
  const ac = new AbortController();
  const aborted = client.request('capabilities.list', undefined, { signal: ac.signal, timeoutMs: 0 });
  ac.abort();
  await assert.rejects(aborted, { code: 'CANCELLED' });
});

test('a host that never answers health: a gated request fails with the transport\'s error', async () => {
  const { client, ports, setLastError } = setup({ probe: true, compatible: fitsTwo, autoReconnect: false });
  const p = client.request('capabilities.list');
  setLastError('Specified native messaging host not found.');
  ports[0].drop();
  await assert.rejects(p, { code: 'HOST_NOT_FOUND' });
});
