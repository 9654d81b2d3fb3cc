// The Side Panel <-> agent worker contract: both halves of
// agent/core/panel_contract.js against each other over paired fake ports,
// and the request and push readings each half relies on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectPanelPort, createBrowserLink, desktopPush, pagePush, readAct, readAttach, readPagePush, reply, servePanelPort } from '../../../agent/core/panel_contract.js';
import { AGENT, AGENT_PORT } from '../../../shared/core/messages.js';

/** Two connected fake runtime ports: what one posts, the other receives. */
function portPair() {
  const make = () => ({ msgs: [], disc: [], peer: null, gone: false,
    onMessage: { addListener(fn) { this.fns.push(fn); }, fns: [] },
    onDisconnect: { addListener(fn) { this.fns.push(fn); }, fns: [] },
    postMessage(m) { if (this.gone) throw new Error('disconnected'); queueMicrotask(() => this.peer.onMessage.fns.forEach((fn) => fn(structuredClone(m)))); },
    disconnect() { this.gone = true; this.peer.gone = true; queueMicrotask(() => this.peer.onDisconnect.fns.forEach((fn) => fn())); },
  });
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

test('the browser link sends the worker the requests its handlers read, and returns their replies', async () => {
  const sent = [];
  const answers = {
    [AGENT.ATTACH]: (m) => { const a = readAttach(m); return reply.attached({ id: a.preferTabId ?? 7, url: 'https://a.example/', title: 'A' }); },
    [AGENT.OBSERVE]: () => reply.observed({ image: 'IMG' }),
    [AGENT.ACT]: (m) => reply.acted({ text: JSON.stringify(readAct(m)) }),
    [AGENT.DETACH]: () => reply.detached(),
  };
  const link = createBrowserLink({ sessionId: 's1', windowId: 3, coordinateMode: 'absolute', send: async (m) => { sent.push(m); return answers[m.type](m); } });
  assert.deepEqual(await link.start({ resume: 1, preferTabId: 9 }), { tabId: 9, url: 'https://a.example/', title: 'A' });
  assert.deepEqual(await link.observe(), { image: 'IMG' });
  const acted = JSON.parse((await link.act({ name: 'Click' }, { step: 2 })).text);
  assert.deepEqual(acted, { sessionId: 's1', action: { name: 'Click' }, coordinateMode: 'absolute', step: 2 });
  await link.stop();
  assert.deepEqual(sent.map((m) => [m.type, m.sessionId]), [[AGENT.ATTACH, 's1'], [AGENT.OBSERVE, 's1'], [AGENT.ACT, 's1'], [AGENT.DETACH, 's1']]);
  assert.equal(sent[0].resume, true);
  assert.equal(sent[0].windowId, 3);
});

test('a refused or unanswered request throws the worker\'s words', async () => {
  const link = createBrowserLink({ sessionId: 's', send: async (m) => (m.type === AGENT.OBSERVE ? { ok: false, error: 'the debugger is not attached' } : undefined) });
  await assert.rejects(link.observe(), /the debugger is not attached/);
  await assert.rejects(link.stop(), new RegExp(`${AGENT.DETACH} got no answer`));
});

test('the worker reads requests defensively', () => {
  const cases = [
    [{ sessionId: 5, coordinateMode: 'absolute', step: 1 }, { sessionId: '5', action: undefined, coordinateMode: 'absolute', step: 1 }],
    [{ sessionId: 's', coordinateMode: 'pixels', step: 1.5 }, { sessionId: 's', action: undefined, coordinateMode: 'normalized', step: undefined }],
  ];
  for (const [m, want] of cases) assert.deepEqual(readAct(m), want);
  assert.deepEqual(readAttach({ sessionId: 's', resume: 'yes', preferTabId: '4' }), { sessionId: 's', windowId: undefined, resume: false, tabId: undefined, preferTabId: undefined });
});

test('the port halves: HELLO registers once, READY resolves the panel, pushes arrive read, the end is reported', async () => {
  const [panelEnd, workerEnd] = portPair();
  const hellos = [];
  const gone = [];
  servePanelPort(workerEnd, { onHello: (id, windowId, port) => hellos.push([id, windowId, port === workerEnd]), onGone: (id) => gone.push(id) });
  const pushes = [];
  const conn = await connectPanelPort({ connect: () => panelEnd, sessionId: 'p1', windowId: 4, onPush: (p) => pushes.push(p) });
  workerEnd.onMessage.fns.forEach((fn) => fn({ type: AGENT_PORT.HELLO, sessionId: 'other', windowId: 5 }));
  assert.deepEqual(hellos, [['p1', 4, true]], 'only the first HELLO counts');
  workerEnd.postMessage(pagePush('task', 12, { task: 'find it', reply: true }));
  workerEnd.postMessage(pagePush('task', 12, { task: 'on the desktop', surface: 'desktop' }));
  workerEnd.postMessage(pagePush('pause', 12));
  workerEnd.postMessage({ type: 'something else' });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(pushes, [
    { kind: 'task', tabId: 12, task: 'find it', reply: true, acted: false, surface: 'tab' },
    { kind: 'task', tabId: 12, task: 'on the desktop', reply: false, acted: false, surface: 'desktop' },
    { kind: 'pause', tabId: 12 },
  ]);
  conn.disconnect();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(gone, ['p1']);
});

test('the panel hears that the desktop offer changed: on each push, and on each READY (also after the worker restarted)', async () => {
  const [panelEnd, workerEnd] = portPair();
  servePanelPort(workerEnd, { onHello: () => {}, onGone: () => {} });
  let heard = 0;
  const pushes = [];
  const conn = await connectPanelPort({ connect: () => panelEnd, sessionId: 'p2', onPush: (p) => pushes.push(p), onDesktop: () => { heard += 1; } });
  assert.equal(heard, 1, 'the first READY: a change may have come before the port was open');
  workerEnd.postMessage(desktopPush());
  workerEnd.postMessage(desktopPush());
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(heard, 3);
  assert.deepEqual(pushes, [], 'not a page push');
  assert.equal(readPagePush(desktopPush()), null);
  conn.disconnect();
});

test('every push kind reads back as itself; other messages are not pushes', () => {
  for (const kind of ['task', 'stop', 'pause', 'resume']) assert.equal(readPagePush(pagePush(kind, 1, { task: 't' })).kind, kind);
  assert.equal(readPagePush({ type: AGENT_PORT.READY }), null);
  assert.equal(readPagePush(null), null);
  assert.throws(() => pagePush('launch', 1), /unknown page push/);
});
