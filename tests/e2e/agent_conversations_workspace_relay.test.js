// The browser agent's conversations and workspace, end to end: the real extension in Chromium, the
// real gnosis-host (workspace folder and relay allow-list in its config), a
// scripted model server. Conversations survive a Side Panel reload, the
// context is compacted (temperature 0) once the scripted usage crosses
// 32,000 prompt tokens, an upload reaches a page's file input, a download
// lands in the workspace, the relay path passes a gateway that rejects
// extension origins, and a conversation exports as a file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launch, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, imagesOf, viewportOf, normalise } from './lib/model_server.js';
import { centerOf, openPanelAndTarget, storeSettings, runTask, TARGET_HTML } from './lib/agent_fixture.js';
import { UPLOAD_HTML, DOWNLOAD_HTML, bytesOf, sha256, fileRoute, workspaceHostConfig } from './lib/workspace_pages.js';

const API_KEY = 'sk-relay-SECRET-91c4';
const REPORT = bytesOf(300 * 1024, 3);
const PAPER = Buffer.concat([Buffer.from('%PDF-1.4\n'), bytesOf(4096, 5)]);
const CSV = Buffer.from('a,b\n1,2\n'.repeat(100));
const UPLOAD = Buffer.from('hello from the workspace\n'.repeat(40));

let env;
let site;
let model;
let gateway;
let play = () => ({ status: 500, body: 'no script' });
let workspaceDir;
const wsRoot = tempDir('gnosis-ws-');

before(async () => {
  workspaceDir = path.join(wsRoot, 'ws');
  fs.mkdirSync(path.join(workspaceDir, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(workspaceDir, 'docs', 'hello.txt'), UPLOAD);
  site = await serve({
    routes: {
      '/target.html': { body: TARGET_HTML },
      '/upload.html': { body: UPLOAD_HTML },
      '/download.html': { body: DOWNLOAD_HTML },
      '/files/report.bin': fileRoute(REPORT, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.bin"' }),
      '/files/paper.pdf': fileRoute(PAPER, { 'content-type': 'application/pdf' }),
      '/files/data.csv': fileRoute(CSV, { 'content-type': 'text/csv' }),
    },
  });
  model = await startModelServer((r) => play(r));
  // A gateway that, like a default Ollama, rejects browser-extension origins.
  gateway = await startModelServer((r) => (String(r.headers.origin || '').startsWith('chrome-extension://')
    ? { status: 403, body: '{"error":"origin not allowed"}' }
    : play(r)));
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'],
    config: workspaceHostConfig({ dir: workspaceDir, allow: [gateway.url] }),
  });
});
after(async () => {
  await env?.close();
  await site?.close();
  await model?.close();
  await gateway?.close();
  fs.rmSync(wsRoot, { recursive: true, force: true });
});

const settingsFor = (url, extra = {}) => ({ apiUrl: url, model: 'venus-test', maxSteps: 20, temperature: 0.5, requestTimeoutMs: 3000, retryBaseMs: 20, retryMaxMs: 200, ...extra });
const act = (think, action, usage) => ({ content: `<think>${think}</think>\n<action>${action}</action>`, usage });
const lastText = (body) => textOf(body.messages[body.messages.length - 1]);
const allText = (body) => body.messages.map(textOf).join('\n---\n');

/** Waits for the n-th live outcome entry of the panel (1-based) and returns {outcome, text}. */
async function nthOutcome(panel, n, timeout = 20_000) {
  await panel.waitForFunction((k) => document.querySelectorAll('#log li.outcome').length >= k, n, { timeout });
  return panel.evaluate((k) => {
    const li = document.querySelectorAll('#log li.outcome')[k - 1];
    return { outcome: li.dataset.outcome, text: li.textContent };
  }, n);
}

/** Runs one task whose model replies come from replies[i] (functions of the request body). */
async function playTask(panel, task, replies, n) {
  const problems = [];
  const bodies = [];
  let i = 0;
  play = async ({ body }) => {
    bodies.push(body);
    const f = replies[i++];
    if (!f) return { status: 400, body: 'unexpected request' };
    try {
      return await f(body);
    } catch (err) {
      problems.push(err.message);
      return act('stop', "Finished(content='script failed')");
    }
  };
  await runTask(panel, task);
  const end = await nthOutcome(panel, n);
  return { end, bodies, problems };
}

function expect(cond, what) {
  if (!cond) throw new Error(what);
}

test('conversations: stored as they happen, restored after a panel reload, New, selector, Delete after confirmation; records hold text, screenshots only the media store', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?conv'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  let r = await playTask(panel, 'Remember the word PLUM', [
    (b) => { expect(!allText(b).includes('Earlier task'), 'a fresh conversation has no earlier task'); return act('Noted.', "Finished(content='PLUM noted')"); },
  ], 1);
  assert.deepEqual(r.problems, []);
  assert.equal(r.end.outcome, 'finished');
  assert.match(await panel.textContent('#meter'), /Step 1\/20/);

  // Reloading the panel restores the active conversation.
  await panel.reload();
  await panel.waitForSelector('body[data-ready="true"]');
  await panel.waitForSelector('#past li.past-user');
  assert.match(await panel.textContent('#past'), /Remember the word PLUM/);
  assert.match(await panel.textContent('#past li.past-outcome'), /PLUM noted/);
  assert.equal(await panel.locator('#log li').count(), 0);
  const firstId = await panel.inputValue('#conversation');

  // A new task appends to it: the model sees the earlier task and its outcome.
  r = await playTask(panel, 'What word did I ask you to remember?', [
    (b) => {
      expect(/Earlier task: Remember the word PLUM/.test(allText(b)), 'the earlier task is in the context');
      expect(/PLUM noted/.test(allText(b)), 'the earlier outcome is in the context');
      return act('It was PLUM.', "Finished(content='PLUM')");
    },
  ], 1);
  assert.deepEqual(r.problems, []);

  // New conversation: clean context.
  await panel.click('#new-conversation');
  await waitFor(async () => (await panel.inputValue('#conversation')) !== firstId, { what: 'a new conversation selected' });
  assert.equal(await panel.locator('#past li').count(), 0);
  r = await playTask(panel, 'A separate errand', [
    (b) => { expect(!allText(b).includes('PLUM'), 'a new conversation does not carry the old one'); return act('Done.', "Finished(content='errand done')"); },
  ], 1);
  assert.deepEqual(r.problems, []);
  const secondId = await panel.inputValue('#conversation');

  // The selector restores the older one.
  await waitFor(async () => (await panel.locator('#conversation option').count()) >= 2, { what: 'two conversations listed' });
  await panel.selectOption('#conversation', firstId);
  await panel.waitForFunction(() => document.querySelector('#past').textContent.includes('What word did I ask'));
  assert.match(await panel.textContent('#past'), /Remember the word PLUM/);

  // Nothing stored carries image data; records carry the kinds the loop wrote.
  const stored = await panel.evaluate(() => new Promise((resolve, reject) => {
    const req = indexedDB.open('gnosis-agent');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const names = [...db.objectStoreNames];
      const tx = db.transaction(names, 'readonly');
      const out = {};
      let left = names.length;
      for (const n of names) {
        const g = tx.objectStore(n).getAll();
        g.onsuccess = () => { out[n] = g.result; if (--left === 0) { db.close(); resolve(out); } };
      }
    };
  }));
  const dump = JSON.stringify(stored.records);
  assert.ok(!/data:image|\/9j\//.test(dump), 'no screenshot in the records');
  assert.ok(stored.media.length > 0 && stored.media.every((m) => m.kind === 'screenshot' && m.mime === 'image/jpeg'), 'screenshots are kept as media');
  assert.match(dump, /"kind":"analysis"/);
  assert.match(dump, /"kind":"action"/);

  // Delete asks first (in the page), then removes it.
  await panel.click('#delete-conversation');
  await panel.waitForSelector('#confirm-delete:not([hidden])');
  await panel.click('#confirm-delete-no');
  assert.ok(await panel.locator(`#conversation option[value="${firstId}"]`).count() === 1, 'Cancel keeps it');
  await panel.click('#delete-conversation');
  await panel.click('#confirm-delete-yes');
  await waitFor(async () => (await panel.locator(`#conversation option[value="${firstId}"]`).count()) === 0, { what: 'the conversation deleted' });
  assert.equal(await panel.inputValue('#conversation'), secondId);
  await target.close();
  await panel.close();
});

test('compaction: after a request over 32,000 prompt tokens the next task first asks for a summary at temperature 0, then sends the summary instead of the old records', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?compact'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  await panel.click('#new-conversation');
  await panel.waitForFunction(() => document.querySelectorAll('#past li').length === 0);
  let r = await playTask(panel, 'Read the long page about OTTERS', [
    () => act('Reading.', "Finished(content='otters live in rivers')", { prompt_tokens: 40000, completion_tokens: 30, total_tokens: 40030 }),
  ], 1);
  assert.equal(r.end.outcome, 'finished');
  r = await playTask(panel, 'Now the next task', [
    (b) => {
      expect(b.temperature === 0, `compaction at temperature 0 (got ${b.temperature})`);
      expect(/memory of a browser automation agent/.test(textOf(b.messages[0])), 'the compaction instructions');
      expect(/Read the long page about OTTERS/.test(allText(b)) && /otters live in rivers/.test(allText(b)), 'the unsummarised records are in the compaction request');
      expect(imagesOf(b).length === 0, 'no screenshots in the compaction request');
      return { content: 'SUMMARY-OTTERS: the user asked about otters; they live in rivers.' };
    },
    (b) => {
      expect(b.temperature === 0.5, 'the task runs at the configured temperature');
      expect(/Summary of the conversation so far \(compacted\):\nSUMMARY-OTTERS/.test(allText(b)), 'the summary is in the request');
      expect(!/Earlier task: Read the long page/.test(allText(b)), 'summarised records are not replayed');
      expect(/Task: Now the next task/.test(allText(b)), 'the current task');
      return act('Done.', "Finished(content='next done')");
    },
  ], 2);
  assert.deepEqual(r.problems, []);
  assert.equal(r.end.outcome, 'finished', r.end.text);
  assert.equal(r.bodies.length, 2);
  assert.match(await panel.textContent('#log li.compacted'), /40000 prompt tokens/);
  // The summary is stored: a reload shows it, and a third task is not compacted again.
  await panel.reload();
  await panel.waitForSelector('#past li.past-summary');
  r = await playTask(panel, 'Third task', [
    (b) => { expect(b.temperature === 0.5 && /SUMMARY-OTTERS/.test(allText(b)), 'no second compaction; summary kept'); return act('ok', "Finished(content='third')"); },
  ], 1);
  assert.deepEqual(r.problems, []);
  await target.close();
  await panel.close();
});

test('Stop during a compaction request ends it at once; the next task compacts again', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?compact-stop'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  await panel.click('#new-conversation');
  await panel.waitForFunction(() => document.querySelectorAll('#past li').length === 0);
  let r = await playTask(panel, 'A big page', [
    () => act('Read.', "Finished(content='big')", { prompt_tokens: 33000, completion_tokens: 5, total_tokens: 33005 }),
  ], 1);
  assert.equal(r.end.outcome, 'finished');
  let hung;
  play = ({ body }) => { hung = body; return { hang: true }; };
  await runTask(panel, 'Next one');
  await waitFor(() => hung, { what: 'the compaction request' });
  assert.equal(hung.temperature, 0);
  await panel.waitForSelector('#stop:not([disabled])');
  const t0 = Date.now();
  await panel.click('#stop');
  const end = await nthOutcome(panel, 2, 15_000);
  assert.equal(end.outcome, 'stopped');
  assert.ok(Date.now() - t0 < 15_000, 'stopped at once: the compaction request hangs until aborted');
  assert.equal(await panel.locator('#log li.outcome >> nth=1 >> .meter').count(), 0, 'no step ran, so no meter');
  r = await playTask(panel, 'Next one again', [
    (b) => { expect(b.temperature === 0, 'compaction is attempted again'); return { content: 'SUMMARY-BIG' }; },
    (b) => { expect(/SUMMARY-BIG/.test(allText(b)), 'then the task has the summary'); return act('ok', "Finished(content='ok')"); },
  ], 3);
  assert.deepEqual(r.problems, []);
  assert.equal(r.end.outcome, 'finished');
  await target.close();
  await panel.close();
});

test('reference images: attached with the picker, sent with the task; more than four, or one over 10 MiB, are refused with a clear message', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?images'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const file = (name, buffer = png) => ({ name, mimeType: 'image/png', buffer });
  await panel.setInputFiles('#image-input', [file('a.png'), file('b.png'), file('c.png'), file('d.png'), file('e.png')]);
  await panel.waitForSelector('#attach-error:not([hidden])');
  assert.match(await panel.textContent('#attach-error'), /at most 4 images; 5 are attached/);
  await panel.setInputFiles('#image-input', [file('big.png', Buffer.alloc(10 * 1024 * 1024 + 1))]);
  await panel.waitForFunction(() => /at most 10\.0 MiB/.test(document.querySelector('#attach-error').textContent));
  await panel.setInputFiles('#image-input', [file('one.png')]);
  await panel.waitForFunction(() => document.querySelectorAll('#attachments figure').length === 1);
  // Paste into the task field adds the clipboard's image.
  await panel.evaluate((b64) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
    document.querySelector('#task').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, png.toString('base64'));
  await panel.waitForFunction(() => document.querySelectorAll('#attachments figure').length === 2);
  assert.equal(await panel.getAttribute('#attachments figure:nth-child(2)', 'data-name'), 'pasted.png');
  assert.equal(await panel.isHidden('#attach-error'), true, 'a valid attachment clears the error');
  const r = await playTask(panel, 'Find the thing in these pictures', [
    (b) => {
      const taskMsg = b.messages.find((m) => Array.isArray(m.content) && /Task: Find the thing/.test(textOf(m)));
      expect(taskMsg, 'the task message carries parts');
      const imgs = taskMsg.content.filter((p) => p.type === 'image_url');
      expect(imgs.length === 2 && imgs.every((p) => p.image_url.url.startsWith('data:image/png;base64,')), 'two reference images with the task');
      expect(imagesOf(b).length === 3, 'two references plus the current screenshot');
      return act('Seen.', "Finished(content='seen')");
    },
  ], 1);
  assert.deepEqual(r.problems, []);
  assert.equal(await panel.locator('#attachments figure').count(), 0);
  await target.close();
  await panel.close();
});

test('upload: the chooser is intercepted, the next request lists the workspace, Upload puts the file into the page\'s input', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/upload.html'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  const point = async (sel, body) => {
    const c = await centerOf(target, sel);
    return normalise(c.x, c.y, viewportOf(body)).join(',');
  };
  const r = await playTask(panel, 'Upload docs/hello.txt', [
    async (b) => act('Open the chooser.', `Click(point=(${await point('#f', b)}))`),
    (b) => {
      const t = lastText(b);
      expect(/A file chooser is open\. Workspace files/.test(t), `the inventory is listed: ${t}`);
      expect(/- docs\/hello\.txt, 1,000 bytes, text\/plain/.test(t), `the file with size and type: ${t}`);
      return act('Supply it.', "Upload(file='docs/hello.txt')");
    },
    (b) => {
      expect(/Result of step 2: uploaded docs\/hello\.txt/.test(lastText(b)), `upload result: ${lastText(b)}`);
      return act('Done.', "Finished(content='uploaded')");
    },
  ], 1);
  assert.deepEqual(r.problems, []);
  assert.equal(r.end.outcome, 'finished', r.end.text);
  const events = await waitFor(() => target.evaluate(() => window.events.length && window.events), { what: 'the page saw a file' });
  assert.deepEqual(events, [`file:hello.txt:${UPLOAD.length}:${sha256(UPLOAD)}:true`]);
  const result = await panel.textContent('#log li.step[data-step="2"] .result');
  assert.match(result, /DOM\.setFileInputFiles/, 'the trusted path worked');
  await target.close();
  await panel.close();
});

test('download: an attachment, an inline PDF and an <a download> link are intercepted without saving, Download streams each into the workspace, names are never reused', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/download.html'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  const point = async (sel, body) => {
    const c = await centerOf(target, sel);
    return normalise(c.x, c.y, viewportOf(body)).join(',');
  };
  const r = await playTask(panel, 'Save the report and the paper', [
    async (b) => act('Click the report link.', `Click(point=(${await point('#dl', b)}))`),
    (b) => {
      expect(/A download was intercepted \(suggested name 'report\.bin', application\/octet-stream, 300\.0 KiB/.test(lastText(b)), `download note: ${lastText(b)}`);
      return act('Save it.', "Download(filename='../report.bin')");
    },
    (b) => {
      expect(/refused: file name may not contain a folder/.test(lastText(b)), `bad name refused: ${lastText(b)}`);
      return act('Save it properly.', "Download(filename='report.bin')");
    },
    async (b) => {
      expect(/saved report\.bin \(300\.0 KiB/.test(lastText(b)), `saved: ${lastText(b)}`);
      return act('Open the paper.', `Click(point=(${await point('#pdf', b)}))`);
    },
    (b) => {
      expect(/A document was intercepted \(suggested name 'paper\.pdf', application\/pdf/.test(lastText(b)), `pdf note: ${lastText(b)}`);
      return act('Save under the taken name.', "Download(filename='report.bin')");
    },
    (b) => {
      expect(/failed: .*exists.*choose another name/i.test(lastText(b)), `never overwrite: ${lastText(b)}`);
      return act('Another name.', "Download(filename='paper.pdf')");
    },
    async (b) => {
      expect(/saved paper\.pdf/.test(lastText(b)), `pdf saved: ${lastText(b)}`);
      return act('Save the data.', `Click(point=(${await point('#attr', b)}))`);
    },
    (b) => {
      expect(/A download was intercepted \(suggested name 'data\.csv'/.test(lastText(b)), `<a download> note: ${lastText(b)}`);
      return act('Save it.', "Download(filename='data.csv')");
    },
    (b) => {
      expect(/saved data\.csv/.test(lastText(b)), `csv saved: ${lastText(b)}`);
      return act('Done.', "Finished(content='all saved')");
    },
  ], 1);
  assert.deepEqual(r.problems, []);
  assert.equal(r.end.outcome, 'finished', r.end.text);
  assert.equal(sha256(fs.readFileSync(path.join(workspaceDir, 'report.bin'))), sha256(REPORT));
  assert.equal(sha256(fs.readFileSync(path.join(workspaceDir, 'paper.pdf'))), sha256(PAPER));
  assert.equal(sha256(fs.readFileSync(path.join(workspaceDir, 'data.csv'))), sha256(CSV));
  assert.equal(target.url(), site.url('/download.html'), 'the page stayed where it was');
  await target.close();
  await panel.close();
});

test('relay: a gateway that rejects extension origins fails direct, works via the host; the key never lands in a log; settings show the workspace', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?relay'));
  await storeSettings(panel, settingsFor(gateway.url), API_KEY);
  let r = await playTask(panel, 'Relay me', [() => act('x', "Finished(content='should not happen')")], 1);
  assert.equal(r.end.outcome, 'error');
  assert.match(r.end.text, /403/);
  // Switch the connection in the form, as a user would.
  await panel.click('#show-settings');
  await panel.waitForFunction(() => /Workspace folder: /.test(document.querySelector('#workspace-status').textContent));
  assert.match(await panel.textContent('#workspace-status'), new RegExp(workspaceDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  await panel.selectOption('#connection', 'host');
  await panel.click('#save');
  await panel.waitForSelector('#settings-status:has-text("Saved.")');
  await panel.click('#show-chat');
  const before = gateway.requests.length;
  r = await playTask(panel, 'Relay me again', [
    (b) => { expect(b.stream === true, 'streams through the relay'); return act('Relayed.', "Finished(content='via host')"); },
  ], 2);
  assert.deepEqual(r.problems, []);
  assert.equal(r.end.outcome, 'finished', r.end.text);
  assert.match(r.end.text, /via host/);
  const relayed = gateway.requests.slice(before);
  assert.equal(relayed.length, 1);
  assert.equal(relayed[0].headers.authorization, `Bearer ${API_KEY}`);
  assert.ok(!String(relayed[0].headers.origin || '').startsWith('chrome-extension://'));
  // Nothing the host wrote (logs, state, cache) contains the key.
  const leaks = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (p !== env.userDataDir) walk(p); } else if (fs.readFileSync(p).includes(API_KEY)) leaks.push(p);
    }
  };
  walk(env.dir);
  assert.deepEqual(leaks, []);
  await target.close();
  await panel.close();
});

test('export: the conversation and its kept screenshots download as one JSON file', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html?export'));
  await storeSettings(panel, settingsFor(model.url), API_KEY);
  await panel.click('#new-conversation');
  await panel.waitForFunction(() => document.querySelectorAll('#past li').length === 0);
  const r = await playTask(panel, 'Export me', [
    () => act('Wait a moment.', 'Wait()'),
    () => act('Done.', "Finished(content='exported')"),
  ], 1);
  assert.equal(r.end.outcome, 'finished');
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('#export-conversation')]);
  assert.match(download.suggestedFilename(), /^gnosis-conversation-.*\.json$/);
  const file = path.join(wsRoot, 'export.json');
  await download.saveAs(file);
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(data.format, 'gnosis-agent-conversation');
  assert.equal(data.conversation.title, 'Export me');
  assert.deepEqual(data.records.map((x) => x.kind), ['task', 'analysis', 'action', 'result', 'analysis', 'action', 'outcome']);
  assert.equal(data.screenshots.length, 2);
  assert.ok(data.screenshots.every((s) => s.dataUrl.startsWith('data:image/jpeg;base64,')));
  await target.close();
  await panel.close();
});
