// host_proxy.js: the page half and the worker half joined by a pair of fake
// runtime ports (messages are structured-cloned, as chrome.runtime does).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProxiedRequest, serveProxiedPort, PROXIED_METHODS } from '../../shared/host_proxy.js';

function portPair() {
  const mk = () => ({ msg: [], disc: [], open: true });
  const a = mk();
  const b = mk();
  const side = (me, other) => ({
    onMessage: { addListener: (f) => me.msg.push(f) },
    onDisconnect: { addListener: (f) => me.disc.push(f) },
    postMessage(m) {
      if (!me.open) throw new Error('port closed');
      const copy = structuredClone(m);
      queueMicrotask(() => { if (other.open) for (const f of other.msg) f(copy); });
    },
    disconnect() {
      if (!me.open) return;
      me.open = false;
      other.open = false;
      queueMicrotask(() => { for (const f of other.disc) f(); });
    },
  });
  return [side(a, b), side(b, a)];
}

function joined(hostRequest, { trusted = true } = {}) {
  const served = [];
  const request = createProxiedRequest({
    connect() {
      const [page, worker] = portPair();
      served.push(worker);
      serveProxiedPort(worker, { request: hostRequest, trusted });
      return page;
    },
  });
  return { request, served };
}

test('forwards events then the reply, with params and timeout intact', async () => {
  const seen = [];
  const { request } = joined(async (method, params, { onEvent, timeoutMs }) => {
    seen.push({ method, params, timeoutMs });
    onEvent({ event: 'relay.head', status: 200 });
    onEvent({ event: 'relay.data', data: 'hello' });
    return { ok: true, status: 200 };
  });
  const events = [];
  const reply = await request('relay.fetch', { url: 'http://127.0.0.1/v1/chat/completions' }, { timeoutMs: 0, onEvent: (e) => events.push(e) });
  assert.deepEqual(reply, { ok: true, status: 200 });
  assert.deepEqual(events.map((e) => e.event), ['relay.head', 'relay.data']);
  assert.deepEqual(seen, [{ method: 'relay.fetch', params: { url: 'http://127.0.0.1/v1/chat/completions' }, timeoutMs: 0 }]);
});

test('a host error reply is a reply; a transport failure rejects with its code and advice', async () => {
  const { request } = joined(async (method) => {
    if (method === 'workspace.info') return { ok: true, configured: false };
    const e = new Error('host not found');
    e.code = 'HOST_NOT_FOUND';
    e.advice = 'install it';
    throw e;
  });
  assert.deepEqual(await request('workspace.info'), { ok: true, configured: false });
  await assert.rejects(request('workspace.list'), (e) => e.code === 'HOST_NOT_FOUND' && e.advice === 'install it');
});

test('methods outside the list and untrusted senders are refused', async () => {
  const calls = [];
  const { request } = joined(async (m) => { calls.push(m); return { ok: true }; });
  await assert.rejects(request('execute', {}), (e) => e.code === 'FORBIDDEN');
  await assert.rejects(request('workspace.create', { name: 'x' }), (e) => e.code === 'FORBIDDEN');
  assert.deepEqual(calls, []);
  assert.ok(!PROXIED_METHODS.includes('workspace.create'));
  const untrusted = joined(async () => ({ ok: true }), { trusted: false });
  await assert.rejects(untrusted.request('workspace.info'), (e) => e.code === 'HOST_DISCONNECTED');
});

test('aborting the page signal cancels the host request', async () => {
  let started;
  const reached = new Promise((r) => { started = r; });
  const { request } = joined((method, params, { signal }) => {
    started(signal);
    return new Promise(() => {});
  });
  const ac = new AbortController();
  const p = request('relay.fetch', {}, { signal: ac.signal });
  const hostSignal = await reached; // the request reached the host
  const cancelled = new Promise((r) => hostSignal.addEventListener('abort', r, { once: true }));
  ac.abort();
  await assert.rejects(p, (e) => e.code === 'CANCELLED');
  await cancelled; // the host's side saw the cancel (a test that never gets it times out)
  assert.equal(hostSignal.aborted, true);
});
