// Long tasks: the prompt size is estimated when the server reports no usage,
// a compaction can run inside a task (keeping its latest rounds and its task
// text), task texts survive the round bound, and a CallUser answer reads as
// the continuation of the task.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequestMessages } from '../../../agent/core/context_builder.js';
import { applyCompaction, KEEP_ROUNDS, planCompaction } from '../../../agent/core/context_compaction.js';
import { imageSize } from '../../../shared/core/images.js';
import { createMeter, formatMeter, meterFromRecords } from '../../../agent/core/task_meter.js';
import { estimateTokens, imageTokens, usageOrEstimate } from '../../../agent/core/token_estimate.js';

function conversation() {
  const records = [];
  const add = (r) => { records.push({ ...r, seq: records.length + 1 }); return records.at(-1); };
  return {
    records,
    add,
    task: (text) => add({ kind: 'task', text }),
    round(step, usage) {
      add({ kind: 'analysis', step, text: `thinking ${step}` });
      add({ kind: 'action', step, text: `Click(point=(${step},${step}))`, usage });
      return add({ kind: 'result', step, text: `clicked ${step}` });
    },
  };
}

// A PNG of the given size: signature and IHDR are all imageSize reads.
function pngBase64(width, height) {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString('base64');
}

// A JPEG with one SOF0 segment after an APP0 segment.
function jpegBase64(width, height) {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.alloc(16)]).toString('base64');
}

const current = (image) => ({ image, mime: 'image/jpeg', viewport: { width: 1280, height: 720 }, url: 'https://site.test/', title: 'T' });
const template = 'Task: {{task}}';
const texts = (messages) => messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.filter((p) => p.type === 'text').map((p) => p.text).join('')));

test('image sizes are read from PNG and JPEG headers; an image costs one token per 28 x 28 px patch', () => {
  assert.deepEqual(imageSize(pngBase64(300, 200)), { width: 300, height: 200 });
  assert.deepEqual(imageSize(jpegBase64(1280, 720)), { width: 1280, height: 720 });
  assert.equal(imageSize('bm90IGFuIGltYWdl'), null);
  assert.equal(imageTokens(`data:image/jpeg;base64,${jpegBase64(1280, 720)}`), 46 * 26 + 2);
  assert.equal(imageTokens('data:image/png;base64,AAAA'), 1200, 'unknown size: the fallback');
});

test('the estimate counts text by length and images by size', () => {
  const text = 'x'.repeat(4000);
  const small = estimateTokens([{ role: 'user', content: text }]);
  assert.equal(small, 4 + 1000);
  const withImage = estimateTokens([{ role: 'user', content: [{ type: 'text', text }, { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpegBase64(1280, 720)}` } }] }]);
  assert.equal(withImage, small + 46 * 26 + 2);
});

test('a reply without usage is measured by estimate and marked so; reported usage is kept as it is', () => {
  const messages = [{ role: 'user', content: 'y'.repeat(400) }];
  assert.deepEqual(usageOrEstimate(undefined, messages, 'z'.repeat(40)), { prompt_tokens: 104, completion_tokens: 10, total_tokens: 114, estimated: true });
  const reported = { prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 };
  assert.equal(usageOrEstimate(reported, messages, 'r'), reported);
});

test('the meter says when its tokens are estimated, also when restored from records', () => {
  const m = createMeter({ maxSteps: 50 });
  m.usage({ prompt_tokens: 133000 / 4, completion_tokens: 20, total_tokens: 133000 / 4 + 20, estimated: true });
  m.step();
  assert.equal(m.snapshot().estimated, true);
  assert.equal(formatMeter(m.snapshot()), 'Step 1/50 · ≈33.3k tokens, estimated (last prompt ≈33.3k)');
  const c = conversation();
  c.task('t');
  c.round(1, { prompt_tokens: 5000, completion_tokens: 5, total_tokens: 5005, estimated: true });
  assert.match(formatMeter(meterFromRecords(c.records).snapshot()), /≈5\.0k tokens, estimated/);
});

test('inside a task a compaction folds everything but the task\'s latest rounds; the task text is still sent', () => {
  const c = conversation();
  c.task('earlier errand');
  c.round(1);
  c.add({ kind: 'outcome', outcome: 'finished', text: 'errand done' });
  c.task('the long task');
  for (let s = 1; s <= 10; s++) c.round(s);
  assert.equal(planCompaction(c.records, { promptTokens: 100, threshold: 1000, keepRounds: KEEP_ROUNDS }), null, 'below the threshold nothing happens');
  const plan = planCompaction(c.records, { promptTokens: 5000, threshold: 1000, keepRounds: KEEP_ROUNDS });
  assert.ok(plan);
  const firstKept = c.records.find((r) => r.kind === 'analysis' && r.step === 10 - KEEP_ROUNDS + 1);
  assert.equal(plan.upto, firstKept.seq - 1, 'the summary ends before the kept rounds');
  assert.match(plan.messages[1].content, /the long task/);
  c.add({ ...applyCompaction(plan, 'SUMMARY: errand done; long task at step 6') });
  const messages = buildRequestMessages({ template, now: new Date(2026, 0, 2), records: c.records, task: 'the long task', current: current('CUR'), step: 11, maxSteps: 50 });
  const t = texts(messages);
  assert.match(t[1], /^Summary of the conversation so far \(compacted\):\nSUMMARY/);
  assert.equal(t[2], 'Task: the long task', 'the task folded into the summary is said again');
  assert.equal(messages.filter((m) => m.role === 'assistant').length, KEEP_ROUNDS);
});

test('a task with no more rounds than are kept is not compacted inside itself unless earlier records can go', () => {
  const c = conversation();
  c.task('only task');
  for (let s = 1; s <= KEEP_ROUNDS; s++) c.round(s);
  assert.equal(planCompaction(c.records, { promptTokens: 9e9, threshold: 1000, keepRounds: KEEP_ROUNDS }), null);
  const d = conversation();
  d.task('before');
  d.round(1);
  d.task('now');
  d.round(1);
  const plan = planCompaction(d.records, { promptTokens: 9e9, threshold: 1000, keepRounds: KEEP_ROUNDS });
  assert.equal(plan.upto, d.records.find((r) => r.text === 'now').seq, 'the earlier task and the current task record are folded');
});

test('after a 40-step task the next task still sees that task\'s text and outcome, with a note on the steps left out', () => {
  const c = conversation();
  c.task('collect the 40 prices');
  for (let s = 1; s <= 40; s++) c.round(s);
  c.add({ kind: 'outcome', outcome: 'finished', text: 'prices collected' });
  c.task('what was the first price?');
  const t = texts(buildRequestMessages({ template, now: new Date(2026, 0, 2), records: c.records, current: current('CUR'), step: 1, maxSteps: 50 })).join('\n');
  assert.match(t, /Earlier task: collect the 40 prices/);
  assert.match(t, /10 earlier steps are left out/);
  assert.match(t, /prices collected/);
  assert.match(t, /Task: what was the first price\?/);
});
