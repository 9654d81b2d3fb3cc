// The Side Panel <-> agent worker contract: both halves of
// agent/core/panel_contract.js against each other (the panel's link against
// handlers that read with the worker's readers; the port halves over paired
// fake ports), and the request and push readings each half relies on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  connectPanelPort, createPanelLink, desktopPush, LinkError, NOT_OFFERED, pagePush, readAct, readAttach, readDesktop, readDesktopAct, readDesktopStop,
  readForget, readGrants, readPagePush, readProfileCheck, readRelay, readSetEnabled, reply, servePanelPort,
} from '../../../agent/core/panel_contract.js';
import { AGENT, AGENT_PORT, DESKTOP, PAGE_ASSISTANT } from '../../../shared/core/messages.js';

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

test('the tab link sends the worker the requests its handlers read, and returns their replies', async () => {
  const sent = [];
  const answers = {
    [AGENT.ATTACH]: (m) => { const a = readAttach(m); return reply.attached({ id: a.preferTabId ?? 7, url: 'https://a.example/', title: 'A' }); },
    [AGENT.OBSERVE]: () => reply.observed({ image: 'IMG' }),
    [AGENT.ACT]: (m) => reply.acted({ text: JSON.stringify(readAct(m)) }),
    [AGENT.DETACH]: () => reply.detached(),
  };
  const link = createPanelLink(async (m) => { sent.push(m); return answers[m.type](m); }).tab({ sessionId: 's1', windowId: 3, coordinateMode: 'absolute' });
  assert.deepEqual(await link.start({ resume: 1, preferTabId: 9 }), { tabId: 9, url: 'https://a.example/', title: 'A' });
  assert.deepEqual(await link.observe(), { image: 'IMG' });
  const acted = JSON.parse((await link.act({ name: 'Click' }, { step: 2 })).text);
  assert.deepEqual(acted, { sessionId: 's1', action: { name: 'Click' }, coordinateMode: 'absolute', step: 2 });
  await link.stop();
  assert.deepEqual(sent.map((m) => [m.type, m.sessionId]), [[AGENT.ATTACH, 's1'], [AGENT.OBSERVE, 's1'], [AGENT.ACT, 's1'], [AGENT.DETACH, 's1']]);
  assert.equal(sent[0].resume, true);
  assert.equal(sent[0].windowId, 3);
});

test('the desktop link: its requests carry the session, the task\'s key and words, the worker reads them, a refusal keeps its code', async () => {
  const sent = [];
  let refuse = false;
  const answers = {
    [DESKTOP.STATE]: (m) => ({ ok: true, offered: true, prefix: 'desktop', ...(readDesktop(m).sessionId ? { grants: { configured: false, tools: ['desktop.computer'] } } : {}) }),
    [DESKTOP.OBSERVE]: (m) => (refuse ? reply.failed('FORBIDDEN', 'the agent may not use desktop.computer') : reply.observed({ image: readDesktop(m).task })),
    [DESKTOP.ACT]: (m) => reply.acted({ text: JSON.stringify(readDesktopAct(m)) }),
    [DESKTOP.STOP]: (m) => ({ ok: true, read: readDesktopStop(m) }),
  };
  const link = createPanelLink(async (m) => { sent.push(m); return answers[m.type](m); });
  const desk = link.desktop({ sessionId: 's2', coordinateMode: 'pixels', taskKey: () => 'conv:4', taskText: () => 'Open the terminal' });
  assert.deepEqual(await desk.start(), { title: 'Desktop (desktop)', url: '', server: 'desktop', grants: { configured: false, tools: ['desktop.computer'] } });
  assert.equal((await desk.observe()).image, 'conv:4');
  assert.deepEqual(JSON.parse((await desk.act({ name: 'Type' }, { step: 3 })).text),
    { sessionId: 's2', task: 'conv:4', taskText: 'Open the terminal', action: { name: 'Type' }, coordinateMode: 'normalized', step: 3 });
  refuse = true;
  await assert.rejects(desk.observe(), (err) => err instanceof LinkError && err.code === 'FORBIDDEN' && /may not use desktop\.computer/.test(err.message));
  // Stop reaches the worker the moment the act's signal aborts, before the act answers.
  let release;
  answers[DESKTOP.ACT] = () => new Promise((r) => { release = r; });
  const ac = new AbortController();
  const acting = desk.act({ name: 'Type' }, { step: 4, signal: ac.signal });
  await new Promise((r) => setTimeout(r, 0));
  ac.abort();
  assert.deepEqual(sent.at(-1), { type: DESKTOP.STOP, sessionId: 's2' });
  release(reply.acted({ text: 'stopped' }));
  await acting;
  // The task's own Stop names it: its typing choices end with it.
  assert.deepEqual((await desk.stop(), sent.at(-1)), { type: DESKTOP.STOP, sessionId: 's2', task: 'conv:4' });
  assert.deepEqual(readDesktopStop(sent.at(-1)), { sessionId: 's2', task: 'conv:4' });
  // The panel's own question carries no session; one not offered says why.
  answers[DESKTOP.STATE] = () => ({ ok: true, offered: false, why: 'no screenshot tool' });
  assert.deepEqual(await link.desktopState(), { ok: true, offered: false, why: 'no screenshot tool' });
  assert.equal(sent.at(-1).sessionId, undefined);
  await assert.rejects(desk.start(), (err) => err.code === NOT_OFFERED && err.message === 'no screenshot tool');
});

test('the views\' requests never throw: an unanswered or failed send is {ok: false, error}', async () => {
  const sent = [];
  const link = createPanelLink(async (m) => {
    sent.push(m);
    if (m.type === DESKTOP.GET_GRANTS) throw new Error('Receiving end does not exist.');
    return m.type === PAGE_ASSISTANT.RELAY ? undefined : { ok: true };
  });
  assert.deepEqual(await link.desktopGrants(), { ok: false, error: 'Receiving end does not exist.' });
  assert.deepEqual(await link.relayToPage(4, { type: 'step' }), { ok: false, error: `${PAGE_ASSISTANT.RELAY} got no answer` });
  assert.deepEqual(await link.saveDesktopGrants({ look: 'allow', point: 'ask', type: 'allow' }, { typingConfirmed: true }), { ok: true });
  assert.deepEqual(await link.setPageAssistant(true), { ok: true });
  assert.deepEqual(await link.checkProfile({ prefix: 'desktop', profile: null, save: true }), { ok: true });
  // What each handler reads of them.
  assert.deepEqual(readGrants(sent[2]), { kinds: { look: 'allow', point: 'ask', type: 'allow' }, typingConfirmed: true });
  assert.deepEqual(readSetEnabled(sent[3]), { enabled: true });
  assert.deepEqual(readProfileCheck(sent[4]), { prefix: 'desktop', profile: null, save: true });
  assert.deepEqual(readRelay(sent[1]), { tabId: 4, event: { type: 'step' } });
});

test('a refused or unanswered request throws the worker\'s words', async () => {
  const link = createPanelLink(async (m) => (m.type === AGENT.OBSERVE ? { ok: false, error: 'the debugger is not attached' } : undefined)).tab({ sessionId: 's' });
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
  const reads = [
    [readDesktop({}), { sessionId: undefined, task: undefined, taskText: '' }],
    [readDesktop({ sessionId: 7, task: 'k'.repeat(300), taskText: 't'.repeat(600) }), { sessionId: '7', task: 'k'.repeat(200), taskText: 't'.repeat(500) }],
    [readDesktop({ taskText: ['a'] }), { sessionId: undefined, task: undefined, taskText: '' }],
    [readDesktopStop({ sessionId: 's', end: true }), { sessionId: 's', task: undefined }],
    [readForget({ ids: [1, 'b'] }), { ids: ['1', 'b'] }],
    [readForget({ ids: 'all' }), { ids: null }],
    [readProfileCheck({ prefix: ' desktop ', profile: [1], save: 'yes' }), { prefix: 'desktop', profile: null, save: false }],
    [readProfileCheck({ prefix: 3, profile: { actions: {} } }), { prefix: '', profile: { actions: {} }, save: false }],
    [readGrants({ kinds: 'all', typingConfirmed: 'yes' }), { kinds: {}, typingConfirmed: false }],
    [readSetEnabled({ enabled: 'true' }), { enabled: false }],
    [readRelay({ tabId: '4', event: { type: 'step' } }), null],
    [readRelay({ tabId: 4, event: {} }), null],
  ];
  for (const [got, want] of reads) assert.deepEqual(got, want);
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
