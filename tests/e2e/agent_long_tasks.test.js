// The browser agent in long and interrupted tasks, end to end with the
// scripted model: Stop ends a long action at once; a question (CallUser)
// survives closing the panel and its answer continues the task; a server that
// reports no usage gets an estimated meter and a compaction inside the task;
// a long task's text, reference images and latest screenshots are kept, shown
// after a reopen and exported with a note on what was left out.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launch, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, imagesOf, viewportOf, normalise } from './lib/model_server.js';
import { ACTIONS_HTML, TARGET_HTML, centerOf, openPanelAndTarget, storeSettings, runTask, shootPanel } from './lib/agent_fixture.js';

let env;
let site;
let model;
let play = () => ({ status: 500, body: 'no script' });
const scratch = tempDir('gnosis-long-');

before(async () => {
  site = await serve({ routes: { '/target.html': { body: TARGET_HTML }, '/actions.html': { body: ACTIONS_HTML } } });
  model = await startModelServer((r) => play(r));
  env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
  await model?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const settingsFor = (extra = {}) => ({ apiUrl: model.url, model: 'venus-test', maxSteps: 50, temperature: 0.5, requestTimeoutMs: 30000, retryBaseMs: 20, retryMaxMs: 200, ...extra });
const act = (think, action, usage) => ({ content: `<think>${think}</think>\n<action>${action}</action>`, usage });
const lastText = (b) => textOf(b.messages[b.messages.length - 1]);
const allText = (b) => b.messages.map(textOf).join('\n---\n');
const isCompaction = (b) => b.temperature === 0 && /memory of a browser automation agent/.test(textOf(b.messages[0]));

async function newConversation(panel) {
  await panel.click('#new-conversation');
  await panel.waitForFunction(() => document.querySelectorAll('#past li').length === 0 && document.querySelectorAll('#log li').length === 0);
}

/** Waits for the n-th outcome entry of the live log (1-based) and returns {outcome, text}. */
async function outcome(panel, timeout = 30_000, n = 1) {
  // The outcome is shown at once; the panel is safe to close when its records are saved.
  await panel.waitForFunction((k) => document.querySelectorAll('#log li.outcome').length >= k && document.body.dataset.saving !== 'true', n, { timeout });
  return panel.evaluate((k) => {
    const li = document.querySelectorAll('#log li.outcome')[k - 1];
    return { outcome: li.dataset.outcome, text: li.textContent };
  }, n);
}

/** Opens the side panel again (as after closing it) and waits until it restored the conversation. */
async function reopenPanel() {
  const panel = await env.openExtensionPage('agent/panel/sidepanel.html');
  await panel.waitForSelector('body[data-ready="true"]');
  return panel;
}

/** The records of the panel's active conversation, from IndexedDB. */
function storedRecords(panel) {
  return panel.evaluate(async () => {
    const id = document.querySelector('#conversation').value;
    const db = await new Promise((resolve, reject) => {
      const req = indexedDB.open('gnosis-agent');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const all = await new Promise((resolve) => {
      const g = db.transaction('records').objectStore('records').index('conversationId').getAll(id);
      g.onsuccess = () => resolve(g.result);
    });
    db.close();
    return all.sort((a, b) => a.seq - b.seq).map(({ kind, outcome, text }) => ({ kind, outcome, text }));
  });
}

/**
 * Clicks Stop while the panel says "acting…" (and, given, once underway() is true: the press is
 * down) and returns the milliseconds until the panel is idle again.
 */
async function stopWhileActing(panel, underway = async () => true) {
  await panel.waitForFunction(() => /acting…/.test(document.querySelector('#status').textContent), null, { timeout: 10_000 });
  await waitFor(underway, { what: 'the action under way' });
  const t0 = Date.now();
  await panel.click('#stop');
  await panel.waitForFunction(() => !document.querySelector('#run').disabled && document.querySelector('#stop').disabled
    && document.querySelector('#status').dataset.state === 'idle', null, { timeout: 15_000 });
  return Date.now() - t0;
}

test('Stop during LongPress(duration=10) or Wait ends the action itself within a second; the button is released at once', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/actions.html'));
  await storeSettings(panel, settingsFor(), 'k');
  play = async ({ body }) => {
    const c = await centerOf(target, '#press');
    return act('Hold it.', `LongPress(point=(${normalise(c.x, c.y, viewportOf(body)).join(',')}), duration=10)`);
  };
  await runTask(panel, 'Hold the box for ten seconds');
  const took = await stopWhileActing(panel, () => target.evaluate(() => window.pressedAt !== undefined));
  assert.ok(took < 5000, `idle ${took} ms after Stop (the press lasts 10 s)`);
  assert.equal((await outcome(panel)).outcome, 'stopped');
  const press = await waitFor(() => target.evaluate(() => window.events.find((e) => e.startsWith('press:'))), { timeoutMs: 10_000, what: 'the mouse button released' });
  assert.ok(Number(press.split(':')[1]) < 5000, `the page saw the button held for ${press.split(':')[1]} ms, not the 10 s asked`);

  play = () => act('Wait for it.', 'Wait()');
  await runTask(panel, 'Wait for the page');
  const tookWait = await stopWhileActing(panel);
  assert.ok(tookWait < 1000, `idle ${tookWait} ms after Stop during Wait`);
  await target.close();
  await panel.close();
});

test('a question survives closing the panel: reopened it still asks, Reply continues the same task on its tab', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?question'));
  await storeSettings(panel, settingsFor(), 'k');
  await newConversation(panel);
  play = () => act('Two colours are possible.', "CallUser(content='Which colour should I pick, red or blue?')");
  await runTask(panel, 'Pick the colour the user wants in the form');
  assert.equal((await outcome(panel)).outcome, 'call_user');
  assert.equal(await panel.textContent('#run'), 'Reply');
  await panel.close();

  const reopened = await reopenPanel();
  await reopened.waitForSelector('#log li.question');
  assert.match(await reopened.textContent('#log li.question'), /The agent asks: Which colour should I pick, red or blue\?/);
  assert.equal(await reopened.textContent('#run'), 'Reply');
  assert.equal(await reopened.getAttribute('#status', 'data-state'), 'waiting');
  assert.equal(await reopened.isDisabled('#stop'), false, 'Stop can still end the pending task');
  assert.match(await reopened.getAttribute('#task', 'placeholder'), /Answer the agent/);
  await reopened.fill('#task', 'Blue, please');
  await shootPanel(reopened, 'question_after_reopen');

  const seen = [];
  play = async ({ body }) => {
    seen.push(body);
    const c = await centerOf(target, '#color');
    if (seen.length === 1) return act('The user wants blue.', `SelectOption(point=(${normalise(c.x, c.y, viewportOf(body)).join(',')}), text='Blue')`);
    return act('Done.', "Finished(content='blue picked')");
  };
  await reopened.click('#run');
  const end = await outcome(reopened, 30_000, 2);
  assert.equal(end.outcome, 'finished', end.text);
  const first = seen[0];
  assert.match(textOf(first.messages[0]), /The user's task: Pick the colour the user wants in the form/);
  assert.match(lastText(first), /You asked the user \(CallUser\): Which colour should I pick, red or blue\?\n\nThe user answered your question: Blue, please\n\nContinue the task with this answer\./);
  assert.doesNotMatch(allText(first), /That task ended/);
  assert.match(lastText(first), /Step 2 of at most 50/, 'the step count goes on');
  assert.deepEqual(await target.evaluate(() => window.events), ['color:blue'], 'the task went on in the tab it asked on');
  assert.deepEqual((await storedRecords(reopened)).map((r) => r.outcome || r.kind), ['task', 'analysis', 'action', 'call_user', 'user', 'analysis', 'action', 'result', 'analysis', 'action', 'finished']);
  await target.close();
  await reopened.close();
});

test('with a server that reports no usage the meter estimates, and a long task compacts inside itself, keeping its task and latest rounds', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?no-usage'));
  await storeSettings(panel, settingsFor({ compactAtTokens: 8000 }), 'k');
  await newConversation(panel);
  const requests = [];
  let compaction = null;
  let after = null;
  play = ({ body }) => {
    requests.push(body);
    if (isCompaction(body)) {
      compaction = body;
      return { content: 'SUMMARY-LONG: the user asked for long notes; notes 1 and 2 are taken.', usage: null };
    }
    if (compaction && !after) {
      after = body;
      return act('Enough.', "Finished(content='notes taken')", null);
    }
    if (requests.length > 14) return act('No compaction came.', "Finished(content='no compaction')", null);
    return act('Noting.', `TakeNote(content='note ${requests.length}: ${'x'.repeat(4000)}')`, null);
  };
  await runTask(panel, 'Take long notes about the page');
  const end = await outcome(panel, 60_000);
  assert.equal(end.outcome, 'finished', end.text);
  assert.match(end.text, /notes taken/);
  assert.ok(compaction, 'a compaction request was sent inside the task');
  assert.ok(/Take long notes about the page/.test(allText(compaction)) && /note 1: x/.test(allText(compaction)), 'it folds the task and the early rounds');
  assert.equal(imagesOf(compaction).length, 0);
  assert.match(allText(after), /Summary of the conversation so far \(compacted\):\nSUMMARY-LONG/);
  assert.match(allText(after), /\nTask: Take long notes about the page/);
  assert.equal(after.messages.filter((m) => m.role === 'assistant').length, 4, 'the latest four rounds stay');
  assert.doesNotMatch(allText(after), /note 1: x/, 'the folded rounds are not replayed');
  const meter = await panel.textContent('#meter');
  assert.match(meter, /≈\d+(\.\d)?k tokens, estimated/);
  assert.ok(Number(await panel.getAttribute('#meter', 'data-total-tokens')) > 8000);
  assert.match(await panel.textContent('#log li.compacted[data-within="task"]'), /inside this task.*estimated/);
  assert.match(await panel.textContent('#log li.outcome .meter'), /estimated: the server reported no usage/);
  await panel.evaluate(() => document.querySelector('#log li.compacted').scrollIntoView({ block: 'center' }));
  await shootPanel(panel, 'compaction_estimated');
  await target.close();
  await panel.close();
});

test('a long task keeps its text for the next task; its reference image and latest screenshots are stored, shown and exported after a reopen', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?long'));
  await storeSettings(panel, settingsFor({ keepScreenshots: 20 }), 'k');
  await newConversation(panel);
  const png = Buffer.from(await target.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 96;
    c.height = 96;
    const g = c.getContext('2d');
    const grad = g.createLinearGradient(0, 0, 96, 96);
    grad.addColorStop(0, '#3a7bd5');
    grad.addColorStop(1, '#00d2ff');
    g.fillStyle = grad;
    g.fillRect(0, 0, 96, 96);
    g.fillStyle = '#fff';
    g.font = 'bold 56px sans-serif';
    g.fillText('P', 30, 68);
    return c.toDataURL('image/png').split(',')[1];
  }), 'base64');
  await panel.setInputFiles('#image-input', [{ name: 'price-tag.png', mimeType: 'image/png', buffer: png }]);
  await panel.waitForFunction(() => document.querySelectorAll('#attachments figure').length === 1);
  const problems = [];
  let n = 0;
  play = ({ body }) => {
    n += 1;
    const taskMsg = body.messages.find((m) => /Task: Collect 33 notes/.test(textOf(m)));
    if (!taskMsg || !Array.isArray(taskMsg.content) || taskMsg.content.filter((p) => p.type === 'image_url').length !== 1) problems.push(`request ${n} lacks the task or its image`);
    return n <= 33 ? act('Noting.', `TakeNote(content='price ${n}')`) : act('Done.', "Finished(content='33 notes')");
  };
  await runTask(panel, 'Collect 33 notes like the tag in the picture');
  const end = await outcome(panel, 90_000);
  assert.equal(end.outcome, 'finished', end.text);
  assert.deepEqual(problems, []);
  await panel.close();

  const reopened = await reopenPanel();
  await reopened.waitForSelector('#past li.past-user[data-images="1"] .thumbs img');
  assert.equal(await reopened.getAttribute('#past li.past-user .thumbs img', 'alt'), 'price-tag.png');
  await reopened.evaluate(() => { document.querySelector('#past').scrollTop = 0; document.querySelector('#past li.past-user').scrollIntoView({ block: 'start' }); });
  await shootPanel(reopened, 'past_reference_image');

  const [download] = await Promise.all([reopened.waitForEvent('download'), reopened.click('#export-conversation')]);
  const file = path.join(scratch, 'export.json');
  await download.saveAs(file);
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(data.screenshots.length, 20);
  assert.deepEqual(data.screenshots.map((s) => s.step), Array.from({ length: 20 }, (_, i) => i + 15));
  assert.ok(data.screenshots.every((s) => s.dataUrl.startsWith('data:image/jpeg;base64,/9j/')));
  assert.deepEqual(data.omitted.screenshots.map((o) => o.steps), [Array.from({ length: 14 }, (_, i) => i + 1)]);
  assert.match(data.omitted.note, /Screenshots of 14 step\(s\) are not included: the latest 20 screenshots of each task are kept/);
  assert.equal(data.referenceImages.length, 1);
  assert.equal(data.referenceImages[0].dataUrl, `data:image/png;base64,${png.toString('base64')}`);

  let next;
  play = ({ body }) => { next = body; return act('It was price 1.', "Finished(content='price 1')"); };
  await runTask(reopened, 'What was the first note?');
  assert.equal((await outcome(reopened)).outcome, 'finished');
  assert.match(allText(next), /Earlier task: Collect 33 notes like the tag in the picture/);
  assert.match(allText(next), /\(4 earlier steps are left out to keep this request small\.\)/);
  assert.match(allText(next), /\(That task ended: finished — 33 notes\)/);
  await target.close();
  await reopened.close();
});
