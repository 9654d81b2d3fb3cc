// Upload when the extension has no file access (the "Allow access to file
// URLs" switch off): DOM.setFileInputFiles is refused, and the file is built
// in the page from the bytes the host read (untrusted change event).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { EXTENSION_ID, launch, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, viewportOf, normalise } from './lib/model_server.js';
import { centerOf, openPanelAndTarget, storeSettings, runTask, outcome } from './lib/agent_fixture.js';
import { UPLOAD_HTML, bytesOf, sha256, workspaceHostConfig } from './lib/workspace_pages.js';

const FILE = bytesOf(70 * 1024, 11);
let env;
let site;
let model;
let play;
const root = tempDir('gnosis-ws-');

before(async () => {
  const dir = path.join(root, 'ws');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'photo.bin'), FILE);
  site = await serve({ routes: { '/upload.html': { body: UPLOAD_HTML } } });
  model = await startModelServer((r) => play(r));
  const perms = { api: [], explicit_host: ['http://127.0.0.1/*'], manifest_permissions: [], scriptable_host: [] };
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'],
    config: workspaceHostConfig({ dir }),
    prefs: { extensions: { settings: { [EXTENSION_ID]: { active_permissions: perms, granted_permissions: perms, newAllowFileAccess: false } } } },
  });
});
after(async () => {
  await env?.close();
  await site?.close();
  await model?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('without file access the upload is built in the page from the host\'s bytes', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/upload.html'));
  await storeSettings(panel, { apiUrl: model.url, model: 'venus-test', maxSteps: 10, temperature: 0.5, requestTimeoutMs: 3000, retryBaseMs: 20, retryMaxMs: 200 }, 'k');
  const last = (b) => textOf(b.messages[b.messages.length - 1]);
  const steps = [
    async (b) => {
      const c = await centerOf(target, '#f');
      return { content: `<action>Click(point=(${normalise(c.x, c.y, viewportOf(b)).join(',')}))</action>` };
    },
    (b) => ({ content: /- photo\.bin, 70\.0 KiB/.test(last(b)) ? "<action>Upload(file='photo.bin')</action>" : "<action>Finished(content='no inventory')</action>" }),
    (b) => ({ content: `<action>Finished(content=${JSON.stringify(last(b).split('\n')[0])})</action>` }),
  ];
  play = ({ n, body }) => steps[n - 1](body);
  await runTask(panel, 'Upload photo.bin');
  const end = await outcome(panel);
  assert.equal(end.outcome, 'finished', end.text);
  assert.match(end.text, /uploaded photo\.bin \(70\.0 KiB .*built in the page; DOM\.setFileInputFiles: .+\)/);
  const events = await waitFor(() => target.evaluate(() => window.events.length && window.events), { what: 'the page saw a file' });
  assert.deepEqual(events, [`file:photo.bin:${FILE.length}:${sha256(FILE)}:false`]);
});
