// The task pipeline, the one way a task goes in (validate → permission →
// compact if needed → start the session), with the real conversation store
// over fake-indexeddb, a scripted model and a fake browser: what each path
// emits, in order, and what it writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import { IDBFactory } from 'fake-indexeddb';
import { openConversationStore } from '../../../agent/core/conversation_store.js';
import { createTaskPipeline, interruptedTask, TASK_STATE } from '../../../agent/core/task_pipeline.js';
import { OUTCOME } from '../../../agent/core/agent_session.js';
import { stoppedError } from '../../../agent/core/model_client.js';
import { fakeBrowser, fakeModel } from './fakes.js';

const template = fs.readFileSync(new URL('../../../agent/prompts/venus_system.txt', import.meta.url), 'utf8');
const SETTINGS = { apiUrl: 'https://model.example/v1', model: 'm', apiKey: 'k', maxSteps: 10, temperature: 0.5, requestTimeoutMs: 1000, retryBaseMs: 1, retryMaxMs: 1, compactAtTokens: 32000, keepScreenshots: 5 };
const A = (a) => `<think>t</think><action>${a}</action>`;

/** A reply that never comes until the request is aborted. */
const hang = (req, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(stoppedError()), { once: true }));

async function setup({ settings = {}, replies = [], grant = async () => true, liveElsewhere, browser = (b) => b, onOutcome } = {}) {
  const store = await openConversationStore({ indexedDB: new IDBFactory() });
  const conv = await store.create();
  const model = fakeModel(replies);
  const browserLog = [];
  const granted = [];
  const events = [];
  const current = { ...SETTINGS, ...settings };
  const p = createTaskPipeline({
    store, settings: () => current, template: () => template, origin: 'chrome-extension://x',
    grant: (pattern) => { granted.push(pattern); return grant(pattern); },
    modelFor: () => model, browserFor: () => browser(fakeBrowser({ log: browserLog, tabId: 4 })), liveElsewhere,
    onOutcome, now: () => new Date(2026, 0, 2),
  });
  p.subscribe((e) => events.push(e));
  await p.open(conv.id, []);
  return { p, store, conv, model, browserLog, granted, events, settings: current };
}

const types = (events) => events.map((e) => e.type);
// Polls cond every 5 ms for up to 10 s (generous: the machine may be loaded); fails if it never holds.
const until = async (cond) => { for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5)); assert.ok(cond(), 'condition never held'); };

test('a task goes down validate → permission → session, and comes back as events the view renders', async () => {
  const { p, store, conv, model, granted, events } = await setup({ replies: [A('Click(point=(1,1))'), A("Finished(content='42')")] });
  events.length = 0;
  const r = await p.start('  find it  ', { images: () => [] });
  assert.deepEqual(r, { outcome: OUTCOME.FINISHED, answer: '42' });
  assert.deepEqual(granted, ['https://model.example/*'], 'the permission is asked for the endpoint');
  const seen = types(events);
  assert.deepEqual(seen.slice(0, 4), ['begin', 'state', 'resolved', 'submitted']);
  assert.equal(events.find((e) => e.type === 'submitted').text, 'find it');
  for (const t of ['meter', 'attached', 'step', 'usage', 'action', 'result', 'end']) assert.ok(seen.includes(t), `${t} in ${seen}`);
  assert.ok(seen.indexOf('end') > seen.lastIndexOf('result'));
  const end = events.find((e) => e.type === 'end');
  assert.equal(end.outcome, OUTCOME.FINISHED);
  assert.equal(end.meter.steps, 2);
  assert.equal(end.meter.requests, 2);
  assert.deepEqual(events.filter((e) => e.type === 'state').map((e) => e.state), [TASK_STATE.STARTING, TASK_STATE.RUNNING, TASK_STATE.IDLE]);
  await p.settled();
  assert.deepEqual((await store.records(conv.id)).map((r) => r.kind), ['task', 'analysis', 'action', 'result', 'analysis', 'action', 'outcome']);
  assert.equal((await store.get(conv.id)).title, 'find it', 'the conversation is named after its task');
  assert.equal(model.requests.length, 2);
});

test('each outcome a task records is handed to onOutcome with its conversation, task and steps (the activity log)', async () => {
  const told = [];
  const { p, conv } = await setup({ replies: [A('Click(point=(1,1))'), A("Finished(content='42')")], onOutcome: (t) => told.push(t) });
  await p.start('find it', { images: () => [] });
  assert.equal(told.length, 1);
  assert.deepEqual({ ...told[0], seq: typeof told[0].seq }, {
    conversation: conv.id, seq: 'number', task: 'find it', steps: 2, outcome: OUTCOME.FINISHED, text: '42', url: told[0].url,
  });
});

test('the conversation is renamed as soon as the task record is written, before the task ends', async () => {
  const { p, store, conv, events } = await setup({ replies: [hang] });
  const run = p.start('name me now', { images: () => [] });
  await until(() => events.some((e) => e.type === 'conversation_changed'));
  assert.equal((await store.get(conv.id)).title, 'name me now');
  assert.equal(p.state, TASK_STATE.RUNNING);
  p.stop();
  assert.equal((await run).outcome, OUTCOME.STOPPED);
});

test('validation refuses before anything is asked for or written; the view gets the reason', async () => {
  const { p, store, conv, granted, events } = await setup({ settings: { apiUrl: 'http://remote.example/v1' } });
  events.length = 0;
  assert.deepEqual(await p.start('x'), { blocked: true });
  assert.deepEqual(types(events), ['begin', 'blocked']);
  assert.equal(events[1].v.code, 'insecure_api_url');
  assert.deepEqual(granted, []);
  assert.deepEqual(await store.records(conv.id), []);
  assert.equal(p.state, TASK_STATE.IDLE);
});

test('a refused permission blocks the task with the permission message and leaves the images for next time', async () => {
  let taken = 0;
  const { p, events } = await setup({ grant: async () => false });
  events.length = 0;
  await p.start('x', { images: () => { taken += 1; return []; } });
  const blocked = events.find((e) => e.type === 'blocked');
  assert.equal(blocked.v.code, 'missing_permission');
  assert.equal(taken, 0);
  assert.equal(p.state, TASK_STATE.IDLE);
});

test('the permission is requested synchronously, inside the user\'s gesture', async () => {
  let calledBeforeReturn = false;
  let returned = false;
  const { p } = await setup({ grant: async () => { calledBeforeReturn = !returned; return false; } });
  const run = p.start('x');
  returned = true;
  await run;
  assert.equal(calledBeforeReturn, true);
});

test('a connection through the host asks for no permission', async () => {
  const { p, granted } = await setup({ settings: { connection: 'host' }, replies: [A('Finished()')] });
  await p.start('x');
  assert.deepEqual(granted, []);
});

test('a conversation over the threshold is compacted before the task, and the task then runs', async () => {
  const { p, store, conv, model, events } = await setup({ settings: { compactAtTokens: 1000 }, replies: [{ content: 'SUMMARY' }, A('Finished()')].map((r) => (typeof r === 'string' ? r : async () => r)) });
  await store.append(conv.id, { kind: 'task', text: 'old task' });
  await store.append(conv.id, { kind: 'action', step: 1, text: 'Wait()', usage: { prompt_tokens: 5000 } });
  await store.append(conv.id, { kind: 'outcome', outcome: 'finished', text: 'done' });
  await p.open(conv.id, await store.records(conv.id));
  events.length = 0;
  await p.start('new task');
  const phases = events.filter((e) => e.type === 'compaction' && e.where === 'before').map((e) => `${e.where}:${e.phase}`);
  assert.deepEqual(phases, ['before:start', 'before:done']);
  assert.equal(model.requests[0].temperature, 0);
  assert.ok(types(events).indexOf('attached') > types(events).indexOf('compaction'));
  assert.ok((await store.records(conv.id)).some((r) => r.kind === 'summary' && r.text === 'SUMMARY'));
});

test('Stop during the compaction before a task ends it as stopped, with nothing started', async () => {
  const { p, store, conv, browserLog, events } = await setup({ settings: { compactAtTokens: 1000 }, replies: [hang] });
  await store.append(conv.id, { kind: 'task', text: 'old' });
  await store.append(conv.id, { kind: 'action', step: 1, text: 'Wait()', usage: { prompt_tokens: 5000 } });
  await store.append(conv.id, { kind: 'outcome', outcome: 'finished', text: '' });
  await p.open(conv.id, await store.records(conv.id));
  const run = p.start('new');
  await until(() => events.some((e) => e.type === 'compaction'));
  p.stop();
  assert.deepEqual(await run, { outcome: OUTCOME.STOPPED });
  assert.equal(events.at(-2).type, 'end');
  assert.equal(events.find((e) => e.type === 'end').compaction, true);
  assert.deepEqual(browserLog, []);
});

test('Stop is shown before the browser lets go: the end event comes while browser.stop() is still pending', async () => {
  const { p, events } = await setup({ replies: [hang] });
  let release;
  const order = [];
  p.subscribe((e) => { if (e.type === 'end') order.push('end'); });
  const browser = fakeBrowser({ tabId: 4 });
  browser.stop = () => { order.push('stop called'); return new Promise((r) => { release = () => { order.push('stop done'); r(); }; }); };
  const run = p.start('x');
  await until(() => events.some((e) => e.type === 'step' && e.phase === 'request'));
  p.session.browser = browser;
  p.stop();
  await until(() => order.includes('end'));
  assert.deepEqual(order, ['stop called', 'end']);
  assert.equal(p.state, TASK_STATE.IDLE, 'idle at once: the view can start the next task');
  release();
  assert.equal((await run).outcome, OUTCOME.STOPPED);
  assert.deepEqual(order, ['stop called', 'end', 'stop done']);
  assert.equal(events.find((e) => e.type === 'end').phase, 'request', 'the end says what was cut short');
});

test('Pause lets the tab go; Resume records that the user acted and the next request carries a fresh screenshot', async () => {
  let n;
  const { p, model, browserLog, store, conv, events } = await setup({
    replies: [A('Click(point=(1,1))'), hang, () => ({ content: A("Finished(content='ok')"), usage: null })],
  });
  const run = p.start('x');
  await until(() => model.requests.length === 2);
  n = browserLog.filter((l) => l[0] === 'observe').length;
  p.pause();
  assert.equal(p.state, TASK_STATE.PAUSING);
  assert.deepEqual(await run, { outcome: OUTCOME.PAUSED, step: 2 });
  assert.equal(p.state, TASK_STATE.PAUSED);
  assert.deepEqual(browserLog.at(-1), ['stop'], 'the debugger let go while paused');
  const paused = events.find((e) => e.type === 'paused');
  assert.equal(paused.step, 2, 'paused during step 2');
  assert.equal(paused.phase, 'request');
  assert.ok(!events.some((e) => e.type === 'end'), 'a pause is not an end');
  const r = await p.resume();
  assert.equal(r.outcome, OUTCOME.FINISHED);
  assert.deepEqual(browserLog.find((l) => l[0] === 'start' && l[1]?.resume), ['start', { resume: true, preferTabId: 4 }]);
  assert.ok(browserLog.filter((l) => l[0] === 'observe').length > n, 'a fresh observation after Resume');
  const last = model.requests[2].messages.at(-1).content.find((c) => c.type === 'text').text;
  assert.match(last, /Note: The user paused the task during step 2, acted on the page by hand and resumed it/);
  assert.match(last, /Step 2 of at most 10/, 'the step the model never answered is asked again under its number');
  await p.settled();
  const kinds = (await store.records(conv.id)).map((rec) => rec.acted ? 'acted' : rec.kind);
  assert.deepEqual(kinds, ['task', 'analysis', 'action', 'result', 'acted', 'analysis', 'action', 'outcome']);
});

test('Pause during an action records that it was interrupted; Stop while paused ends the task', async () => {
  let releaseAct;
  const slowAct = (b) => ({ ...b, act: () => new Promise((r) => { releaseAct = r; }) });
  const { p, store, conv, events } = await setup({ replies: [A('Wait()')], browser: slowAct });
  const run = p.start('x');
  await until(() => p.session?.phase === 'act');
  p.pause();
  await run;
  releaseAct?.({ text: 'late' });
  p.stop();
  assert.equal(p.state, TASK_STATE.IDLE);
  const end = events.find((e) => e.type === 'end');
  assert.equal(end.outcome, OUTCOME.STOPPED);
  await p.settled();
  const recs = await store.records(conv.id);
  assert.match(recs.find((r) => r.kind === 'result').text, /^interrupted: the user paused the task/);
  assert.deepEqual(recs.at(-1), { ...recs.at(-1), kind: 'outcome', outcome: 'stopped', text: 'stopped while paused at step 1' });
});

test('a question survives reopening: open() restores it, the answer (or "I did it on the page") continues the same task', async () => {
  const { p, store, conv, model, events } = await setup({ replies: [A("CallUser(content='Log in for me?')"), A("Finished(content='in')")] });
  await p.start('buy it');
  await p.settled();
  assert.equal(p.state, TASK_STATE.WAITING);
  // Another panel opens the same conversation.
  const again = createTaskPipeline({
    store, settings: () => SETTINGS, template: () => template, origin: 'o', grant: async () => true,
    modelFor: () => model, browserFor: () => fakeBrowser({ tabId: 4 }),
  });
  const seen = [];
  again.subscribe((e) => seen.push(e));
  await again.open(conv.id, await store.records(conv.id));
  assert.equal(seen.find((e) => e.type === 'restored').question.text, 'Log in for me?');
  assert.equal(again.state, TASK_STATE.WAITING);
  assert.deepEqual(await again.start('whatever', { acted: true, tabId: 9 }), { ignored: true }, 'a page\'s "I did it" without reply: true starts nothing new');
  const r = await again.start('I did it on the page.', { acted: true });
  assert.equal(r.outcome, OUTCOME.FINISHED);
  const last = model.requests[1].messages.at(-1).content.find((c) => c.type === 'text').text;
  assert.match(last, /You asked the user \(CallUser\): Log in for me\?\n\nThe user answered your question: I did it on the page\. The user acted on the page by hand/);
  assert.doesNotMatch(last, /Result of step 1: \(none\)|Result of step 1/, 'no empty result before the question');
  assert.equal(seen.find((e) => e.type === 'end').meter.requests, 2, 'the meter counts the whole task across the reopen');
  assert.ok(events.length > 0);
});

test('a task whose panel closed while it ran is closed as interrupted, at its step, once', async () => {
  const { p, store, conv, events } = await setup();
  for (const r of [{ kind: 'task', text: 'long one' }, { kind: 'analysis', step: 1, text: 'a' }, { kind: 'action', step: 1, text: 'Click(point=(1,1))' },
    { kind: 'result', step: 1, text: 'clicked' }, { kind: 'analysis', step: 2, text: 'b' }, { kind: 'action', step: 2, text: 'Wait()' }]) await store.append(conv.id, r);
  events.length = 0;
  await p.open(conv.id, await store.records(conv.id));
  const end = events.find((e) => e.type === 'end');
  assert.equal(end.outcome, OUTCOME.INTERRUPTED);
  assert.equal(end.step, 2);
  assert.equal(end.error, 'the side panel was closed during step 2');
  await p.settled();
  const records = await store.records(conv.id);
  assert.deepEqual(records.at(-1), { ...records.at(-1), kind: 'outcome', outcome: 'interrupted', text: 'the side panel was closed during step 2' });
  events.length = 0;
  await p.open(conv.id, records);
  assert.ok(!events.some((e) => e.type === 'end'), 'told once');
});

test('an unfinished task another open panel may be running is left alone', async () => {
  const { p, store, conv, events } = await setup({ liveElsewhere: async () => true });
  await store.append(conv.id, { kind: 'task', text: 'running elsewhere' });
  events.length = 0;
  await p.open(conv.id, await store.records(conv.id));
  assert.ok(!events.some((e) => e.type === 'end'));
  assert.equal((await store.records(conv.id)).length, 1);
});

test('interruptedTask names the step a closed panel cut short', () => {
  const rec = (kind, extra = {}) => ({ kind, ...extra });
  const seq = (list) => list.map((r, i) => ({ ...r, seq: i + 1 }));
  const cases = [
    [[], null],
    [[rec('task'), rec('outcome', { outcome: 'finished' })], null],
    [[rec('task')], 1],
    [[rec('task'), rec('analysis', { step: 1 }), rec('action', { step: 1, text: 'Click(point=(1,1))' })], 1],
    [[rec('task'), rec('action', { step: 1, text: 'Wait()' }), rec('result', { step: 1, text: 'waited' })], 2],
    [[rec('task'), rec('action', { step: 1, text: "CallUser(content='?')" }), rec('outcome', { outcome: 'call_user' }), rec('user', { text: 'yes' })], 2],
    [[rec('task'), rec('action', { step: 3, text: 'Wait()' }), rec('result', { step: 3, text: 'interrupted', interrupted: 'pause' })], 3],
  ];
  for (const [records, step] of cases) assert.equal(interruptedTask(seq(records))?.step ?? null, step, JSON.stringify(records));
  assert.match(interruptedTask(seq(cases.at(-1)[0])).text, /while the task was paused at step 3/);
});

test('writes are reported while pending, and a failed write is an event, not a crash', async () => {
  const { p, store, events } = await setup({ replies: [A('Finished()')] });
  store.putScreenshot = async () => { throw new Error('quota exceeded'); };
  await p.start('x');
  await p.settled();
  assert.deepEqual(events.filter((e) => e.type === 'saving').map((e) => e.saving).slice(0, 1), [true]);
  assert.equal(events.filter((e) => e.type === 'saving').at(-1).saving, false);
  assert.deepEqual(events.find((e) => e.type === 'write_error'), { type: 'write_error', what: 'screenshot', error: 'quota exceeded' });
});

test('a second start while one runs is ignored; Stop while waiting for an answer records it', async () => {
  const { p, store, conv, events } = await setup({ replies: [A("CallUser(content='?')")] });
  await p.start('ask me');
  assert.equal(p.state, TASK_STATE.WAITING);
  events.length = 0;
  p.stop();
  assert.deepEqual(events.map((e) => e.type === 'state' ? e.state : e.type), ['end', TASK_STATE.IDLE]);
  await p.settled();
  assert.equal((await store.records(conv.id)).at(-1).text, 'the question was left unanswered');
  const { p: p2, browserLog } = await setup({ replies: [hang] });
  const run = p2.start('one');
  assert.deepEqual(await p2.start('two'), { ignored: true });
  p2.stop();
  assert.deepEqual(await run, { outcome: OUTCOME.STOPPED }, 'Stop while it starts: nothing starts');
  assert.deepEqual(browserLog, []);
});
