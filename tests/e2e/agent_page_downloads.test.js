// Downloads a web app builds in JavaScript (an Export button: a blob: URL
// revoked right after the click, a data: URL, a blob larger than one read
// piece) reach the workspace through Download, with the page's own file name;
// the Side Panel's own Export is never taken for the page's. A data: URL on a
// page that sends no referrer (Referrer-Policy: no-referrer) is told apart by
// the tab that started it, and Download's advice never says to click first
// after a click that started one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launch, tempDir } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, viewportOf, normalise } from './lib/model_server.js';
import { centerOf, openPanelAndTarget, storeSettings, runTask, outcome } from './lib/agent_fixture.js';
import { bytesOf, sha256, workspaceHostConfig } from './lib/workspace_pages.js';

const CSV = 'name,price\nplum,3\n'.repeat(500);
const JSON_TEXT = JSON.stringify({ saved: true, items: [1, 2, 3] });
const BIG = bytesOf(5 * 1024 * 1024 + 123, 17);

/** A web app whose buttons build their files in the page. */
const APP_HTML = `<!doctype html>
<html><head><title>Export app</title><style>
body { margin: 0; font: 16px sans-serif; }
button { position: absolute; left: 100px; width: 220px; height: 40px; }
#csv { top: 80px; } #json { top: 160px; } #big { top: 240px; }
</style></head><body>
<button id="csv">Export CSV</button>
<button id="json">Save JSON</button>
<button id="big">Export archive</button>
<script>
function save(href, name) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.click();
}
document.getElementById('csv').addEventListener('click', () => {
  const url = URL.createObjectURL(new Blob([${JSON.stringify(CSV)}], { type: 'text/csv' }));
  save(url, 'export.csv');
  URL.revokeObjectURL(url);
});
document.getElementById('json').addEventListener('click', () => {
  save('data:application/json;base64,' + btoa(${JSON.stringify(JSON_TEXT)}), 'data.json');
});
const archive = fetch('/big.b64').then((r) => r.text()).then((t) => Uint8Array.from(atob(t), (c) => c.charCodeAt(0)));
let bytes = null;
archive.then((b) => { bytes = b; document.body.dataset.archive = 'ready'; });
document.getElementById('big').addEventListener('click', () => {
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  save(url, 'archive.bin');
  setTimeout(() => URL.revokeObjectURL(url), 0);
});
</script></body></html>`;

/** The same data: export on a page whose downloads carry no referrer. */
const NOREF_HTML = `<!doctype html>
<html><head><title>Private export</title><meta name="referrer" content="no-referrer"><style>
body { margin: 0; font: 16px sans-serif; }
#json { position: absolute; left: 100px; top: 80px; width: 220px; height: 40px; }
</style></head><body>
<button id="json">Save JSON</button>
<script>
document.getElementById('json').addEventListener('click', () => {
  const a = document.createElement('a');
  a.href = 'data:application/json;base64,' + btoa(${JSON.stringify(JSON_TEXT)});
  a.download = 'private.json';
  a.click();
});
</script></body></html>`;

let env;
let site;
let model;
let play = () => ({ status: 500, body: 'no script' });
const root = tempDir('gnosis-ws-');
const workspaceDir = path.join(root, 'ws');

before(async () => {
  fs.mkdirSync(workspaceDir, { recursive: true });
  site = await serve({ routes: {
    '/app.html': { body: APP_HTML }, '/big.b64': { body: BIG.toString('base64') },
    '/noref.html': (req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' }); res.end(NOREF_HTML); },
  } });
  model = await startModelServer((r) => play(r));
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], config: workspaceHostConfig({ dir: workspaceDir }) });
});
after(async () => {
  await env?.close();
  await site?.close();
  await model?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const settings = { apiUrl: '', model: 'venus-test', maxSteps: 20, temperature: 0.5, requestTimeoutMs: 30000, retryBaseMs: 20, retryMaxMs: 200 };
const act = (think, action) => ({ content: `<think>${think}</think>\n<action>${action}</action>` });
const lastText = (b) => textOf(b.messages[b.messages.length - 1]);

test('Export buttons that build blob: and data: downloads are intercepted and saved into the workspace by Download; the panel\'s own Export is not', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/app.html'));
  await target.waitForSelector('body[data-archive="ready"]', { state: 'attached' });
  await storeSettings(panel, { ...settings, apiUrl: model.url }, 'k');
  const point = async (sel, body) => {
    const c = await centerOf(target, sel);
    return normalise(c.x, c.y, viewportOf(body)).join(',');
  };
  const problems = [];
  const expect = (cond, what) => { if (!cond) problems.push(what); };
  const steps = [
    () => act('Save first.', "Download(filename='early.csv')"),
    async (b) => {
      expect(/no download is waiting to be saved\. Click the page's download link or its Export\/Save button first/.test(lastText(b)), `advice: ${lastText(b)}`);
      return act('Export.', `Click(point=(${await point('#csv', b)}))`);
    },
    (b) => {
      expect(/A download was intercepted \(suggested name 'export\.csv', text\/csv, 8\.8 KiB \(9,000 bytes\)\)/.test(lastText(b)), `csv note: ${lastText(b)}`);
      return act('Save it.', "Download(filename='export.csv')");
    },
    async (b) => {
      expect(/Result of step 3: saved export\.csv \(8\.8 KiB/.test(lastText(b)), `csv saved: ${lastText(b)}`);
      return act('Save the JSON.', `Click(point=(${await point('#json', b)}))`);
    },
    (b) => {
      expect(/A download was intercepted \(suggested name 'data\.json', application\/json/.test(lastText(b)), `json note: ${lastText(b)}`);
      return act('Save it.', "Download(filename='data.json')");
    },
    async (b) => {
      expect(/saved data\.json/.test(lastText(b)), `json saved: ${lastText(b)}`);
      return act('The archive.', `Click(point=(${await point('#big', b)}))`);
    },
    (b) => {
      expect(/A download was intercepted \(suggested name 'archive\.bin', application\/octet-stream, 5\.0 MiB/.test(lastText(b)), `archive note: ${lastText(b)}`);
      return act('Save it.', "Download(filename='archive.bin')");
    },
    async (b) => {
      expect(/saved archive\.bin \(5\.0 MiB/.test(lastText(b)), `archive saved: ${lastText(b)}`);
      stepEight();
      await held; // meanwhile the user exports the conversation from the panel
      return act('Wait.', 'Wait()');
    },
    (b) => {
      expect(!/intercepted/.test(lastText(b)), `the panel's export is not the page's: ${lastText(b)}`);
      return act('Done.', "Finished(content='exports saved')");
    },
  ];
  let release;
  let stepEight;
  const held = new Promise((r) => { release = r; });
  const atStepEight = new Promise((r) => { stepEight = r; });
  play = ({ n, body }) => (steps[n - 1] ? steps[n - 1](body) : { status: 400, body: 'unexpected' });
  await runTask(panel, 'Export the data and save it');
  await atStepEight;
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('#export-conversation')]);
  assert.equal(await download.failure(), null, 'the panel\'s own export completed');
  assert.match(download.suggestedFilename(), /^gnosis-conversation-.*\.json$/);
  release();
  const end = await outcome(panel, 60_000);
  assert.deepEqual(problems, []);
  assert.equal(end.outcome, 'finished', end.text);
  assert.equal(fs.readFileSync(path.join(workspaceDir, 'export.csv'), 'utf8'), CSV);
  assert.equal(fs.readFileSync(path.join(workspaceDir, 'data.json'), 'utf8'), JSON_TEXT);
  assert.equal(sha256(fs.readFileSync(path.join(workspaceDir, 'archive.bin'))), sha256(BIG));
  const downloads = await env.evalInWorker(() => chrome.downloads.search({}));
  const fromPage = downloads.filter((d) => d.state === 'complete' && !d.url.startsWith('blob:chrome-extension://'));
  assert.deepEqual(fromPage.map((d) => d.url), [], 'nothing of the page\'s went to the Downloads folder');
  assert.equal(downloads.filter((d) => d.state === 'complete').length, 1, 'the panel\'s export did');
  await target.close();
  await panel.close();
});

test('a data: download on a page that sends no referrer is kept too (told apart by the tab that acted), and the advice never says to click first after that click', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/noref.html'));
  await storeSettings(panel, { ...settings, apiUrl: model.url }, 'k');
  const problems = [];
  const expect = (cond, what) => { if (!cond) problems.push(what); };
  const steps = [
    async (b) => {
      const c = await centerOf(target, '#json');
      return act('Save the JSON.', `Click(point=(${normalise(c.x, c.y, viewportOf(b)).join(',')}))`);
    },
    (b) => {
      expect(/A download was intercepted \(suggested name 'private\.json', application\/json/.test(lastText(b)), `no-referrer data: note: ${lastText(b)}`);
      return act('Save it.', "Download(filename='private.json')");
    },
    (b) => {
      expect(/Result of step 2: saved private\.json/.test(lastText(b)), `saved: ${lastText(b)}`);
      return act('Again.', "Download(filename='again.json')");
    },
    (b) => {
      expect(/Download refused: no download is waiting: the last one \('private\.json'\) was saved in step 2\./.test(lastText(b)), `advice after a save: ${lastText(b)}`);
      expect(!/Click the page's download link or its Export\/Save button first/.test(lastText(b)), `no "click first" after the click that downloaded: ${lastText(b)}`);
      return act('Done.', "Finished(content='saved')");
    },
  ];
  let k = 0;
  play = ({ body }) => { k += 1; return steps[k - 1] ? steps[k - 1](body) : { status: 400, body: 'unexpected' }; };
  await runTask(panel, 'Save the private JSON');
  const end = await outcome(panel, 60_000);
  assert.deepEqual(problems, []);
  assert.equal(end.outcome, 'finished', end.text);
  assert.equal(fs.readFileSync(path.join(workspaceDir, 'private.json'), 'utf8'), JSON_TEXT);
  const downloads = await env.evalInWorker(() => chrome.downloads.search({ state: 'complete' }));
  assert.deepEqual(downloads.filter((d) => d.url.startsWith('data:')).map((d) => d.filename), [], 'nothing of the page\'s went to the Downloads folder');
  await target.close();
  await panel.close();
});
