// The agent loop with a fake browser and a fake model: what each request
// holds, how runs end, CallUser continuation, re-ask, loop warning, Stop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import { AgentSession, OUTCOME } from '../../../agent/core/agent_session.js';
import { LOOP_WARNING } from '../../../agent/core/prompt.js';
import { stoppedError } from '../../../agent/core/model_client.js';
import { fakeBrowser, fakeModel } from './fakes.js';

const template = fs.readFileSync(new URL('../../../agent/prompts/venus_system.txt', import.meta.url), 'utf8');
const settings = { maxSteps: 10, temperature: 0.5, model: 'm', requestTimeoutMs: 1000, retryBaseMs: 1, retryMaxMs: 1 };

function session(browser, model, extra = {}) {
  const events = [];
  const s = new AgentSession({ browser, model, template, config: { settings: { ...settings, ...extra }, endpoint: 'e', loopback: false }, onEvent: (e) => events.push(e), now: () => new Date(2026, 0, 2) });
  return { s, events };
}

const A = (a) => `<think>t</think><action>${a}</action>`;
const images = (req) => req.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url') : []));
const lastText = (req) => req.messages.at(-1).content.find((p) => p.type === 'text').text;

test('a run: system prompt filled, results carried forward, at most three screenshots, Finished detaches', async () => {
  const b = fakeBrowser();
  const m = fakeModel([A('Click(point=(1,1))'), A('Hover(point=(2,2))'), A('Scroll(point=(3,3), direction="down")'), A('Type(content="x")'), A("Finished(content='42')")]);
  const { s } = session(b, m);
  const r = await s.run('find the answer');
  assert.deepEqual(r, { outcome: OUTCOME.FINISHED, answer: '42' });
  assert.equal(m.requests.length, 5);
  const sys = m.requests[0].messages[0].content;
  assert.match(sys, /Today is 2026-01-02 \(Friday\)/);
  assert.match(sys, /The user's task: find the answer/);
  assert.match(sys, /800 x 600 CSS pixels/);
  assert.doesNotMatch(sys, /\{\{/);
  assert.match(sys, /integers from 0 to 999/);
  assert.deepEqual(m.requests.map((q) => images(q).length), [1, 2, 3, 3, 3]);
  assert.deepEqual(images(m.requests[4]).map((p) => p.image_url.url), ['data:image/jpeg;base64,IMG3', 'data:image/jpeg;base64,IMG4', 'data:image/jpeg;base64,IMG5']);
  assert.match(lastText(m.requests[1]), /Result of step 1: did Click/);
  assert.match(lastText(m.requests[4]), /Result of step 4: did Type/);
  assert.equal(m.requests[0].temperature, 0.5);
  assert.deepEqual(b.log.filter((l) => l[0] === 'act').map((l) => l[1]), ['Click', 'Hover', 'Scroll', 'Type']);
  assert.deepEqual(b.log.at(-1), ['stop']);
});

test('CallUser waits; the reply continues the same task with the answer in the history', async () => {
  const b = fakeBrowser();
  const m = fakeModel([A("CallUser(content='Which one?')"), A("Finished(content='ok')")]);
  const { s } = session(b, m);
  assert.deepEqual(await s.run('pick'), { outcome: OUTCOME.CALL_USER, question: 'Which one?' });
  assert.equal(s.waitingForUser, true);
  assert.deepEqual(b.log.at(-1), ['stop']);
  assert.deepEqual(await s.reply('the blue one'), { outcome: OUTCOME.FINISHED, answer: 'ok' });
  assert.match(lastText(m.requests[1]), /Result of step 1: waiting for the user\n\nThe user replied: the blue one/);
  assert.match(m.requests[1].messages[0].content, /The user's task: pick/);
  assert.deepEqual(b.log.filter((l) => l[0] === 'start').map((l) => l[1]), [{}, { resume: true }]);
});

test('an unparsable reply is re-asked once; a second failure fails the step visibly and the run goes on', async () => {
  const b = fakeBrowser();
  const m = fakeModel(['nothing', 'still nothing', A('Finished()')]);
  const { s, events } = session(b, m);
  const r = await s.run('t');
  assert.equal(r.outcome, OUTCOME.FINISHED);
  assert.match(m.requests[1].messages.at(-1).content, /could not be used: no action found/);
  assert.equal(m.requests[1].messages.at(-2).content, 'nothing');
  assert.ok(events.some((e) => e.type === 'step_failed' && /no action found/.test(e.error)));
  assert.match(lastText(m.requests[2]), /Result of step 1: invalid reply, nothing was done/);
});

test('two identical consecutive replies add the loop warning to the next request only', async () => {
  const b = fakeBrowser();
  const same = A('Hover(point=(5,5))');
  const m = fakeModel([same, same, A('Wait()'), A('Finished()')]);
  const { s } = session(b, m);
  await s.run('t');
  assert.deepEqual(m.requests.map((q) => lastText(q).includes(LOOP_WARNING)), [false, false, true, false]);
});

test('the step limit ends the run after maxSteps actions', async () => {
  const b = fakeBrowser();
  const m = fakeModel(Array(10).fill(A('Wait()')));
  const { s } = session(b, m, { maxSteps: 3 });
  const r = await s.run('t');
  assert.equal(r.outcome, OUTCOME.STEP_LIMIT);
  assert.equal(m.requests.length, 3);
  assert.deepEqual(b.log.at(-1), ['stop']);
});

test('Stop during a request ends the run as stopped and detaches', async () => {
  const b = fakeBrowser();
  let requested;
  const inFlight = new Promise((r) => { requested = r; });
  const m = fakeModel([(req, { signal }) => new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(stoppedError()));
    requested();
  })]);
  const { s } = session(b, m);
  const p = s.run('t');
  await inFlight;
  s.stop();
  assert.deepEqual(await p, { outcome: OUTCOME.STOPPED });
  assert.ok(b.log.filter((l) => l[0] === 'stop').length >= 1);
});

test('a browser failure ends the run with the error and detaches', async () => {
  const b = fakeBrowser();
  b.act = async () => { throw new Error('the debugger was detached (target_closed)'); };
  const m = fakeModel([A('Click(point=(1,1))')]);
  const { s } = session(b, m);
  const r = await s.run('t');
  assert.deepEqual(r, { outcome: OUTCOME.ERROR, error: 'the debugger was detached (target_closed)' });
  assert.deepEqual(b.log.at(-1), ['stop']);
});

test('hooks: buildMessages replaces the builder, beforeRequest adds warnings, onRecord sees every record', async () => {
  const b = fakeBrowser();
  const m = fakeModel([A("TakeNote(content='n')"), A('Finished()')]);
  const records = [];
  const seenShots = [];
  const s = new AgentSession({
    browser: b, model: m, template, config: { settings, endpoint: 'e' },
    beforeRequest: (ctx) => { ctx.warnings.push('INVENTORY'); },
    buildMessages: (ctx) => {
      seenShots.push(ctx.previousScreenshots.map((p) => p.step));
      return [{ role: 'user', content: `custom ${ctx.step} ${ctx.warnings.join()}` }];
    },
    onRecord: (r) => records.push(r.kind),
  });
  await s.run('t');
  assert.equal(m.requests[0].messages[0].content, 'custom 1 INVENTORY');
  assert.deepEqual(seenShots, [[], [1]]);
  assert.deepEqual(records, ['task', 'analysis', 'action', 'result', 'analysis', 'action', 'outcome']);
});

test('Stop while waiting for the user ends the task: a reply is refused', async () => {
  const m = fakeModel([A("CallUser(content='?')")]);
  const { s } = session(fakeBrowser(), m);
  await s.run('t');
  s.stop();
  assert.equal(s.waitingForUser, false);
  await assert.rejects(s.reply('late'), /not waiting/);
});

test('notes queued by the browser side reach the next request', async () => {
  const b = fakeBrowser();
  const observe = b.observe;
  let n = 0;
  b.observe = async () => ({ ...(await observe()), notes: ++n === 2 ? ['A file chooser is open. Workspace files: a.txt (3 B)'] : [] });
  const m = fakeModel([A('Click(point=(1,1))'), A('Finished()')]);
  const { s } = session(b, m);
  await s.run('t');
  assert.doesNotMatch(lastText(m.requests[0]), /file chooser/);
  assert.match(lastText(m.requests[1]), /A file chooser is open\. Workspace files: a\.txt/);
});
