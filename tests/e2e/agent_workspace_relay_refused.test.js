// The browser agent with a host that has no workspace folder and a relay
// allow-list that does not cover the model URL: Settings explain how to set
// the folder, a file chooser tells the model the workspace is unavailable and
// Upload is refused with that reason, and a relay refusal ends the task at
// once instead of being retried forever.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, viewportOf, normalise } from './lib/model_server.js';
import { centerOf, openPanelAndTarget, storeSettings, runTask, outcome } from './lib/agent_fixture.js';
import { UPLOAD_HTML } from './lib/workspace_pages.js';

let env;
let site;
let model;
let play = () => ({ status: 500 });

before(async () => {
  site = await serve({ routes: { '/upload.html': { body: UPLOAD_HTML } } });
  model = await startModelServer((r) => play(r));
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'],
    config: { providers: [], relay: { allow: ['http://127.0.0.1:9/v1'] }, log: { level: 'debug' } },
  });
});
after(async () => {
  await env?.close();
  await site?.close();
  await model?.close();
});

const settingsFor = (extra = {}) => ({ apiUrl: model.url, model: 'venus-test', maxSteps: 10, temperature: 0.5, requestTimeoutMs: 3000, retryBaseMs: 20, retryMaxMs: 200, ...extra });

test('settings explain how to set the workspace folder; a chooser tells the model it is unavailable and Upload says why', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/upload.html'));
  await storeSettings(panel, settingsFor(), 'k');
  await panel.click('#show-settings');
  await panel.waitForFunction(() => document.querySelector('#workspace-status').dataset.configured === 'false');
  assert.match(await panel.textContent('#workspace-status'), /No workspace folder is set up.*"workspace": \{"dir": "\/absolute\/path\/to\/a\/folder"\}.*gnosis-host configuration/);
  await panel.click('#show-chat');
  const last = (b) => textOf(b.messages[b.messages.length - 1]);
  const seen = [];
  const steps = [
    async (b) => {
      const c = await centerOf(target, '#f');
      return { content: `<action>Click(point=(${normalise(c.x, c.y, viewportOf(b)).join(',')}))</action>` };
    },
    (b) => { seen.push(last(b)); return { content: "<action>Upload(file='x.txt')</action>" }; },
    (b) => { seen.push(last(b)); return { content: "<action>Finished(content='done')</action>" }; },
  ];
  play = ({ n, body }) => steps[n - 1](body);
  await runTask(panel, 'Upload something');
  const end = await outcome(panel);
  assert.equal(end.outcome, 'finished', end.text);
  assert.match(seen[0], /A file chooser is open, but the workspace folder is not available \(.*\)\. The user must set "workspace"/);
  assert.match(seen[1], /Result of step 2: Upload refused: the workspace folder is not available \(.*set "workspace": \{"dir": \.\.\.\} in the gnosis-host config\)/);
  assert.deepEqual(await target.evaluate(() => window.events), []);
  await target.close();
  await panel.close();
});

test('via the host, a model URL outside relay.allow ends the task at once with the reason (no endless retries)', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/upload.html?relay'));
  await storeSettings(panel, settingsFor({ connection: 'host' }), 'sk-unused');
  const before = model.requests.length;
  play = () => ({ content: "<action>Finished(content='must not be reached')</action>" });
  await runTask(panel, 'Try the relay');
  const end = await outcome(panel, 10_000);
  assert.equal(end.outcome, 'error', end.text);
  assert.match(end.text, /could not be sent/);
  assert.equal(model.requests.length, before, 'the host did not forward it');
  await waitFor(async () => (await panel.locator('#stop[disabled]').count()) === 1, { what: 'the run ended' });
  assert.equal(await panel.locator('#status').textContent(), '');
  await target.close();
  await panel.close();
});
