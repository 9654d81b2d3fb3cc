import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { openConversationStore } from '../../../agent/core/conversation_store.js';
import { createContextBuilder, buildRequestMessages, countImages } from '../../../agent/core/context_builder.js';
import { applyCompaction, compactIfNeeded, COMPACTION_THRESHOLD, lastPromptTokens, planCompaction } from '../../../agent/core/context_compaction.js';
import { CONTEXT_CODES } from '../../../agent/core/context_error.js';
import { groupEntries, selectHistory } from '../../../agent/core/context_history.js';
import { MAX_ROUNDS } from '../../../agent/core/prompt.js';
import { validateReferenceImages } from '../../../agent/core/image_data.js';
import { createMeter, formatMeter, meterFromRecords } from '../../../agent/core/task_meter.js';

const MiB = 1024 * 1024;

// A conversation builder that numbers records the way the store does.
function conversation() {
  const records = [];
  const add = (r) => { records.push({ ...r, seq: records.length + 1 }); return records[records.length - 1]; };
  return {
    records,
    add,
    task(text) { return add({ kind: 'task', text }); },
    round(step, { usage, url = `https://site.test/${step}` } = {}) {
      add({ kind: 'analysis', step, text: `thinking ${step}` });
      add({ kind: 'action', step, text: `Click(point=(${step},${step}))`, usage, observation: { url, title: `page ${step}`, viewport: { width: 800, height: 600 } } });
      return add({ kind: 'result', step, text: `clicked ${step}` });
    },
  };
}

const current = { image: 'CURRENT', mime: 'image/png', viewport: { width: 1024, height: 700 }, url: 'https://site.test/now', title: 'Now' };
const template = 'Today is {{date}}. Task: {{task}}. Viewport {{viewport_width}}x{{viewport_height}}.';

function build(records, extra = {}) {
  return buildRequestMessages({ template, now: new Date(2026, 0, 2), records, current, step: 5, maxSteps: 100, ...extra });
}

function texts(messages) {
  return messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.filter((p) => p.type === 'text').map((p) => p.text).join('')));
}

test('a request replays at most the latest 30 rounds and keeps every task text, answer and outcome of the rounds left out', () => {
  const c = conversation();
  c.task('old task');
  for (let s = 1; s <= 25; s++) c.round(s);
  c.task('current task');
  for (let s = 1; s <= 15; s++) c.round(s);
  const { entries, droppedRounds } = selectHistory(c.records);
  const rounds = entries.filter((e) => e.kind === 'round');
  assert.equal(rounds.length, MAX_ROUNDS);
  assert.equal(droppedRounds, 10);
  assert.deepEqual([rounds[0].step, rounds.at(-1).step], [11, 15]);
  assert.equal(entries[0].text, 'old task', 'the old task text stays while its first rounds go');
  assert.equal(entries[1].kind, 'round');

  const c2 = conversation();
  c2.task('long task');
  for (let s = 1; s <= 40; s++) c2.round(s);
  const kept = selectHistory(c2.records).entries;
  assert.equal(kept[0].text, 'long task', 'the current task stays even when its early rounds are dropped');
  assert.equal(kept.filter((e) => e.kind === 'round')[0].step, 11);

  const messages = build(c2.records);
  assert.equal(messages.filter((m) => m.role === 'assistant').length, MAX_ROUNDS);
  assert.match(messages[0].content, /^Today is 2026-01-02 \(Friday\)\. Task: long task\. Viewport 1024x700\.$/);
});

test('at most three observation screenshots: the two previous steps and the current one, last', () => {
  const c = conversation();
  c.task('t');
  for (let s = 1; s <= 4; s++) c.round(s);
  const previousScreenshots = [1, 2, 3, 4].map((step) => ({ step, image: `SHOT${step}`, mime: 'image/jpeg' }));
  const messages = build(c.records, { previousScreenshots });
  assert.equal(countImages(messages), 3);
  const last = messages.at(-1);
  assert.deepEqual(last.content.filter((p) => p.type === 'image_url').map((p) => p.image_url.url),
    ['data:image/jpeg;base64,SHOT3', 'data:image/jpeg;base64,SHOT4', 'data:image/png;base64,CURRENT']);
  assert.match(last.content[0].text, /previous steps \(step 3, step 4\)/);
  assert.equal(countImages(build(c.records)), 1, 'no previous screenshots in memory: only the current one');
});

test('history turns carry results forward and replay the model in its own format', () => {
  const c = conversation();
  c.task('book a table');
  c.round(1);
  c.add({ kind: 'outcome', outcome: 'call_user', text: 'Which day?' });
  c.add({ kind: 'user', text: 'Friday' });
  c.round(2);
  const messages = build(c.records, { warnings: ['Warning: loop'] });
  assert.deepEqual(messages.map((m) => m.role), ['system', 'user', 'user', 'assistant', 'user', 'user', 'user', 'assistant', 'user']);
  const t = texts(messages);
  assert.equal(t[1], 'Task: book a table');
  assert.equal(t[2], 'Step 1 observation.\nURL: https://site.test/1\nTitle: page 1\nViewport: 800 x 600 CSS pixels');
  assert.equal(t[3], '<think>thinking 1</think><action>Click(point=(1,1))</action>');
  assert.equal(t[4], 'Result of step 1: clicked 1\n\nYou asked the user (CallUser): Which day?');
  assert.equal(t[5], 'The user answered your question: Friday');
  assert.match(t[8], /^Result of step 2: clicked 2\n\nWarning: loop\n\nStep 5 of at most 100\. Current observation\.\nURL: https:\/\/site\.test\/now/);
});

test('reference images: up to four a message, 10 MiB each, 20 MiB together, images only', () => {
  const img = (size, extra = {}) => ({ name: `${size}.png`, mime: 'image/png', size, ...extra });
  const ok = validateReferenceImages([img(5 * MiB), img(5 * MiB), img(5 * MiB), img(5 * MiB)]);
  assert.equal(ok.length, 4, 'exactly 20 MiB in four images is allowed');
  const cases = [
    ['five images', [img(1), img(1), img(1), img(1), img(1)], CONTEXT_CODES.TOO_MANY_IMAGES, /at most 4 images; 5 are attached/],
    ['one above 10 MiB', [img(10 * MiB + 1)], CONTEXT_CODES.IMAGE_TOO_LARGE, /each image may be at most 10\.0 MiB/],
    ['three of 8 MiB', [img(8 * MiB), img(8 * MiB), img(8 * MiB)], CONTEXT_CODES.IMAGES_TOO_LARGE, /total 24\.0 MiB.*at most 20\.0 MiB/],
    ['a text file', [{ name: 'notes.txt', mime: 'text/plain', size: 3 }], CONTEXT_CODES.NOT_AN_IMAGE, /notes\.txt is not a supported image/],
    ['an SVG', [{ name: 'x.svg', dataUrl: 'data:image/svg+xml;base64,PHN2Zz4=' }], CONTEXT_CODES.NOT_AN_IMAGE, /image\/svg\+xml/],
  ];
  for (const [name, images, code, message] of cases) {
    assert.throws(() => validateReferenceImages(images), (e) => e.code === code && message.test(e.message), name);
  }
  // Sizes are measured from the data, not trusted from the caller.
  const big = 'A'.repeat(Math.ceil((10 * MiB + 3) / 3) * 4);
  assert.throws(() => validateReferenceImages([{ name: 'liar.png', mime: 'image/png', size: 1, data: big }]), { code: CONTEXT_CODES.IMAGE_TOO_LARGE });
  assert.deepEqual(validateReferenceImages([{ name: 'a', dataUrl: 'data:image/png;base64,AAAA' }]),
    [{ name: 'a', mime: 'image/png', size: 3, dataUrl: 'data:image/png;base64,AAAA' }]);
});

test('reference images ride on the current task message, beside the three screenshots', () => {
  const c = conversation();
  c.task('match this style');
  c.round(1);
  c.round(2);
  const refs = [{ name: 'r1', dataUrl: 'data:image/png;base64,UjE=' }, { name: 'r2', dataUrl: 'data:image/webp;base64,UjI=' }];
  const messages = build(c.records, { referenceImages: refs, previousScreenshots: [{ step: 1, image: 'S1' }, { step: 2, image: 'S2' }] });
  assert.equal(countImages(messages), 5);
  const taskMsg = messages[1];
  assert.deepEqual(taskMsg.content.map((p) => p.type), ['text', 'image_url', 'image_url']);
  assert.match(taskMsg.content[0].text, /^Task: match this style\n\(2 reference images attached\.\)$/);
  assert.throws(() => build(c.records, { referenceImages: Array(5).fill(refs[0]) }), { code: CONTEXT_CODES.TOO_MANY_IMAGES });
});

test('a summary replaces the records it covers', () => {
  const c = conversation();
  c.task('first');
  c.round(1);
  c.add({ kind: 'summary', text: 'The user wanted X; it was done.', upto: 4 });
  c.task('second');
  c.round(1);
  const messages = build(c.records);
  const t = texts(messages);
  assert.equal(t[1], 'Summary of the conversation so far (compacted):\nThe user wanted X; it was done.');
  assert.ok(!t.some((x) => x.includes('first')), 'summarised records are not replayed');
  assert.equal(t[2], 'Task: second');
});

test('compaction is planned only when the previous prompt exceeded 32,000 tokens', () => {
  const c = conversation();
  c.task('research');
  c.round(1, { usage: { prompt_tokens: 20000 } });
  c.round(2, { usage: { prompt_tokens: COMPACTION_THRESHOLD } });
  assert.equal(lastPromptTokens(c.records), COMPACTION_THRESHOLD);
  assert.equal(planCompaction(c.records), null, 'exactly at the threshold: no compaction');
  c.add({ kind: 'outcome', outcome: 'finished', text: 'found it' });
  c.records.find((r) => r.kind === 'action' && r.step === 2).usage = { prompt_tokens: COMPACTION_THRESHOLD + 1 };

  const plan = planCompaction(c.records);
  assert.equal(plan.temperature, 0);
  assert.deepEqual([plan.from, plan.upto, plan.promptTokens], [1, 8, 32001]);
  assert.equal(plan.messages[0].role, 'system');
  const body = plan.messages[1].content;
  assert.match(body, /Previous summary: \(none\)/);
  assert.match(body, /#1 task: research/);
  assert.match(body, /#3 action step 1 \[https:\/\/site\.test\/1\]: Click\(point=\(1,1\)\)/);
  assert.match(body, /#8 outcome \(finished\): found it/);

  const summary = applyCompaction(plan, '<think>hm</think>\nResearched; found it.\n');
  assert.deepEqual(summary, { kind: 'summary', text: 'Researched; found it.', from: 1, upto: 8, promptTokens: 32001 });
  c.add(summary);
  assert.equal(planCompaction(c.records), null, 'once compacted, the old usage no longer triggers');

  c.task('next');
  c.round(1, { usage: { prompt_tokens: 40000 } });
  const again = planCompaction(c.records);
  assert.deepEqual([again.from, again.upto], [10, 13], 'only records after the summary are folded');
  assert.match(again.messages[1].content, /Previous summary:\nResearched; found it\./);
  assert.throws(() => applyCompaction(again, '  <think>only thoughts</think> '), { code: CONTEXT_CODES.EMPTY_SUMMARY });
  assert.ok(planCompaction(conversation().records, { force: true }) === null, 'nothing to compact');
});

test('the meter counts steps and tokens and restores from records', () => {
  const m = createMeter({ maxSteps: 100 });
  m.usage({ prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050 });
  m.step();
  m.usage({ prompt_tokens: 12000, completion_tokens: 300 });
  m.step();
  m.usage(null);
  assert.deepEqual(m.snapshot(), { steps: 2, maxSteps: 100, requests: 3, promptTokens: 13000, completionTokens: 350, totalTokens: 13350, lastPromptTokens: 12000, estimated: false });
  assert.equal(formatMeter(m.snapshot()), 'Step 2/100 · 13.3k tokens (last prompt 12.0k)');

  const c = conversation();
  c.task('old');
  c.round(1, { usage: { prompt_tokens: 999 } });
  c.task('now');
  c.round(1, { usage: { prompt_tokens: 100, completion_tokens: 10 } });
  c.round(2, { usage: { prompt_tokens: 200, completion_tokens: 20 } });
  const s = meterFromRecords(c.records).snapshot();
  assert.deepEqual([s.steps, s.promptTokens, s.totalTokens, s.lastPromptTokens], [2, 300, 330, 200]);
});

test('groupEntries keeps rounds of different tasks apart even with equal step numbers', () => {
  const c = conversation();
  c.task('a');
  c.round(1);
  c.task('b');
  c.round(1);
  const rounds = groupEntries(c.records).filter((e) => e.kind === 'round');
  assert.deepEqual(rounds.map((r) => [r.task, r.step, r.result]), [[1, 1, 'clicked 1'], [5, 1, 'clicked 1']]);
});

test('the builder mirrors the store numbering and compaction runs before the next task', async () => {
  let n = 0;
  const store = await openConversationStore({ indexedDB: new IDBFactory(), newId: () => `c${++n}` });
  const conv = await store.create();
  const builder = createContextBuilder({ records: await store.records(conv.id) });
  const onRecord = async (r) => {
    const mirrored = builder.onRecord(r);
    const stored = await store.append(conv.id, r);
    assert.equal(stored.seq, mirrored.seq, 'mirror and store agree on sequence numbers');
  };
  await onRecord({ kind: 'task', text: 'find the price' });
  await onRecord({ kind: 'analysis', step: 1, text: 'a table' });
  await onRecord({ kind: 'action', step: 1, text: 'Click(point=(1,2))', usage: { prompt_tokens: 40000, completion_tokens: 10 } });
  await onRecord({ kind: 'result', step: 1, text: 'clicked' });
  const messages = builder.buildMessages({ template, now: new Date(2026, 0, 2), task: 'find the price', current, step: 2, maxSteps: 10, previousScreenshots: [] });
  assert.equal(texts(messages)[1], 'Task: find the price');

  const requests = [];
  const summary = await compactIfNeeded({
    records: builder.records,
    complete: async (req) => { requests.push(req); return { content: 'The user wants a price; a table was clicked.' }; },
    append: onRecord,
  });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].temperature, 0);
  assert.deepEqual([summary.from, summary.upto], [1, 4]);
  assert.equal((await store.records(conv.id)).at(-1).kind, 'summary', 'the summary is stored');
  assert.equal(await compactIfNeeded({ records: builder.records, complete: () => assert.fail('no second compaction'), append: onRecord }), null);
  const after = texts(builder.buildMessages({ template, now: new Date(2026, 0, 2), current, step: 1, maxSteps: 10 }));
  assert.equal(after[1], 'Summary of the conversation so far (compacted):\nThe user wants a price; a table was clicked.');
  assert.throws(() => builder.setReferenceImages(Array(5).fill({ name: 'x', dataUrl: 'data:image/png;base64,AAAA' })), { code: CONTEXT_CODES.TOO_MANY_IMAGES });
});

test('the user\'s answer to CallUser (and anything else after the last round) is in the final message, before the current observation', () => {
  const c = conversation();
  c.task('book a table');
  c.round(1);
  c.add({ kind: 'outcome', outcome: 'call_user', text: 'Which day?' });
  c.add({ kind: 'user', text: 'Friday' });
  const messages = build(c.records);
  assert.deepEqual(messages.map((m) => m.role), ['system', 'user', 'user', 'assistant', 'user']);
  assert.match(texts(messages)[4], /^Result of step 1: clicked 1\n\nYou asked the user \(CallUser\): Which day\?\n\nThe user answered your question: Friday\n\nContinue the task with this answer\.\n\nStep 5 of at most 100\. Current observation\./);
});

test('a question or an end follows its step without an empty result; a result that never came says so', () => {
  const c = conversation();
  c.task('log in');
  c.add({ kind: 'analysis', step: 1, text: 'a login form' });
  c.add({ kind: 'action', step: 1, text: "CallUser(content='Please log in for me')" });
  c.add({ kind: 'outcome', outcome: 'call_user', text: 'Please log in for me' });
  c.add({ kind: 'user', text: 'I did it on the page.', acted: true });
  const t = texts(build(c.records));
  assert.doesNotMatch(t.join('\n'), /Result of step 1/, 'no result line for the question');
  assert.match(t.at(-1), /^You asked the user \(CallUser\): Please log in for me\n\nThe user answered your question: I did it on the page\. The user acted on the page by hand: the current screenshot shows the page as it is now\.\n\nContinue the task with this answer\./);

  const cut = conversation();
  cut.task('t');
  cut.add({ kind: 'analysis', step: 1, text: 'x' });
  cut.add({ kind: 'action', step: 1, text: 'Click(point=(1,1))' });
  cut.add({ kind: 'outcome', outcome: 'interrupted', text: 'the side panel was closed during step 1' });
  cut.task('again');
  const u = texts(build(cut.records)).join('\n');
  assert.match(u, /Result of step 1: not known: the step ended before its action reported back\.\n\n\(That task ended: interrupted — the side panel was closed during step 1\)/);
  assert.doesNotMatch(u, /\(none\)/);
});
