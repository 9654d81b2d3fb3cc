// Step 2 of the setup page with its form: any MCP server added with its
// arguments and a secret variable (whose value never comes back to the page),
// a server that fails shown with its reason and its own stderr (at the field
// when checked, in the list once saved), Edit that fixes it, a hanging check
// cancelled, bad input at its field, Remove; and a content script, which any
// web page can talk to, refused every one of these messages.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { REPO, fakeMunim, launch, readJsonl, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { shots } from './lib/setup_page.js';

const SECRET = 'sk-setup-secret-4711';
let env;
let dir;
let page;
let broken;
let hanging;

before(async () => {
  dir = tempDir('gnosis-setup-servers-');
  broken = path.join(dir, 'broken-server');
  fs.writeFileSync(broken, '#!/bin/sh\necho "fatal: cannot open /srv/tools.db" >&2\necho "giving up" >&2\nexit 2\n', { mode: 0o755 });
  hanging = path.join(dir, 'hanging-server');
  fs.writeFileSync(hanging, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  env = await launch({ setupPage: true, grantOrigins: ['http://127.0.0.1/*'], config: { providers: [] } });
  page = env.setupPage;
  await page.locator('body[data-ready]').waitFor();
  await waitFor(() => page.locator('#server-body').isVisible(), { what: 'step 2 open', timeoutMs: 15_000 });
});
after(async () => {
  await env?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const text = (sel) => page.locator(sel).textContent();
const server = (name) => page.locator(`#servers li.server[data-name="${name}"]`);

test('the form adds a server with its arguments and a secret variable; the value never comes back to the page', async () => {
  const notesLog = path.join(dir, 'notes.jsonl');
  await page.getByRole('button', { name: 'Add another MCP server' }).click();
  await page.getByLabel('Program', { exact: true }).fill(process.execPath);
  await page.getByLabel('Program', { exact: true }).press('Tab');
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'node', 'named after its program');
  await page.getByLabel('Name', { exact: true }).fill('notes');
  await page.getByLabel('Arguments', { exact: true }).fill(path.join(REPO, 'tests', 'e2e', 'fixtures', 'annotated_mcp.mjs'));
  await page.getByLabel('Environment', { exact: true }).fill(`ANNOTATED_LOG=${notesLog}\nNOTES_API_KEY=${SECRET}`);
  await page.getByRole('button', { name: 'Check', exact: true }).last().click();
  await waitFor(async () => (await page.locator('#server-command-note').getAttribute('data-tone')) === 'ok', { what: 'check ok', timeoutMs: 20_000 });
  assert.match(await text('#server-command-note'), /answered as an MCP server and lists \d+ tools/);
  await shots(page, 'setup_2_form');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await server('notes').getAttribute('data-state')) === 'ready', { what: 'notes ready', timeoutMs: 20_000 });
  assert.equal(await page.locator('#server-form').isVisible(), false);
  assert.match(await server('notes').textContent(), /Environment: ANNOTATED_LOG, NOTES_API_KEY \(values hidden\)/);
  assert.match(await server('notes').locator('.server-program').textContent(), /annotated_mcp\.mjs$/);
  const saved = env.config().providers.find((p) => p.name === 'notes');
  assert.equal(saved.env.NOTES_API_KEY, SECRET, 'the host wrote the value into its configuration');
  // Edit shows the variable by its name only; saving keeps the stored value.
  await server('notes').getByRole('button', { name: 'Edit notes' }).click();
  assert.equal(await page.getByLabel('Environment', { exact: true }).inputValue(), 'ANNOTATED_LOG\nNOTES_API_KEY');
  assert.doesNotMatch(await page.content(), new RegExp(SECRET));
  await page.getByLabel('Tool prefix', { exact: true }).fill('memo');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await server('notes').locator('.server-prefix').textContent()) === 'memo.*' && (await server('notes').getAttribute('data-state')) === 'ready', { what: 'notes restarted as memo', timeoutMs: 20_000 });
  assert.equal(env.config().providers.find((p) => p.name === 'notes').env.NOTES_API_KEY, SECRET, 'kept by the name alone');
  assert.doesNotMatch(await page.content(), new RegExp(SECRET));
  assert.deepEqual(readJsonl(notesLog), [], 'nothing ran a tool');
});

test('a server that fails: its reason and own stderr at the field when checked, in the list once saved; Edit fixes it', async () => {
  await page.getByRole('button', { name: 'Add another MCP server' }).click();
  await page.getByLabel('Name', { exact: true }).fill('broken');
  await page.getByLabel('Program', { exact: true }).fill(broken);
  await page.getByRole('button', { name: 'Check', exact: true }).last().click();
  await waitFor(async () => (await page.locator('#server-command-note').getAttribute('data-tone')) === 'bad', { what: 'check failed', timeoutMs: 20_000 });
  assert.match(await text('#server-command-stderr'), /fatal: cannot open \/srv\/tools\.db\ngiving up/);
  assert.equal(await page.locator('#server-command-stderr').evaluate((el) => el.tagName), 'PRE');
  assert.ok((await text('#server-command-fix')).length > 0, 'the host says what to do');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await server('broken').getAttribute('data-state')) === 'down', { what: 'broken down', timeoutMs: 20_000 });
  assert.match(await server('broken').locator('.server-error').textContent(), /exit status 2/);
  assert.match(await server('broken').locator('pre').textContent(), /fatal: cannot open \/srv\/tools\.db/);
  assert.equal(await text('#server-chip'), 'Ready', 'the other server is ready');
  await shots(page, 'setup_2_server_down');

  await server('broken').getByRole('button', { name: 'Edit broken' }).click();
  assert.equal(await page.getByLabel('Name', { exact: true }).isEditable(), false, 'a server keeps its name');
  await page.getByLabel('Program', { exact: true }).fill(await fakeMunim());
  await page.getByLabel('Tool prefix', { exact: true }).fill('pc2');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await server('broken').getAttribute('data-state')) === 'ready', { what: 'fixed', timeoutMs: 20_000 });
  assert.equal(await server('broken').locator('pre').count(), 0);
});

test('a check of a server that never answers can be cancelled at once', async () => {
  await page.getByRole('button', { name: 'Add another MCP server' }).click();
  await page.getByLabel('Name', { exact: true }).fill('hangs');
  await page.getByLabel('Program', { exact: true }).fill(hanging);
  await page.locator('summary', { hasText: 'Timeouts' }).click();
  await page.getByLabel('Start (seconds)').fill('120');
  await page.getByRole('button', { name: 'Check', exact: true }).last().click();
  await waitFor(async () => (await page.locator('#server-command-note').getAttribute('data-tone')) === 'busy', { what: 'checking' });
  await page.getByRole('button', { name: 'Cancel the check' }).click();
  await waitFor(async () => (await text('#server-command-note')) === 'Check cancelled.', { what: 'cancelled', timeoutMs: 10_000 });
  assert.equal(await page.getByRole('button', { name: 'Cancel the check' }).isVisible(), false);
});

test('bad input comes back at its field and changes nothing', async () => {
  const before = JSON.stringify(env.config());
  await page.getByLabel('Tool prefix', { exact: true }).fill('capabilities');
  await page.getByLabel('Program', { exact: true }).fill(await fakeMunim());
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await text('#server-prefix-error')).length > 0, { what: 'prefix error' });
  assert.match(await text('#server-prefix-error'), /capabilities/);
  assert.equal(await page.getByLabel('Tool prefix', { exact: true }).getAttribute('aria-invalid'), 'true');
  assert.equal(JSON.stringify(env.config()), before);
  await page.getByLabel('One call (seconds)').fill('0');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  assert.match(await text('#server-timeout-error'), /number of seconds/);
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  assert.equal(await page.locator('#server-form').isVisible(), false);
});

test('Remove asks, then stops the server and takes it out of the configuration', async () => {
  await server('broken').getByRole('button', { name: 'Remove broken' }).click();
  await page.getByRole('button', { name: 'Yes, remove broken' }).click();
  await waitFor(async () => (await server('broken').count()) === 0, { what: 'removed', timeoutMs: 15_000 });
  assert.deepEqual(env.config().providers.map((p) => p.name), ['notes']);
});

test('a content script cannot list, add, check or remove servers, nor read the report', async () => {
  const site = await serve();
  try {
    const url = site.url('/chat.html');
    await env.newPage(url);
    const before = JSON.stringify(env.config());
    const replies = await env.evalInWorker(async (u) => {
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
      const [res] = await chrome.scripting.executeScript({
        target: { tabId: tab.id }, world: 'ISOLATED',
        func: async () => Promise.all([
          chrome.runtime.sendMessage({ type: 'bridge.setProvider', provider: { name: 'evil', command: '/bin/sh', args: ['-c', 'touch /tmp/pwned'] } }),
          chrome.runtime.sendMessage({ type: 'bridge.checkProvider', provider: { command: '/bin/sh' } }),
          chrome.runtime.sendMessage({ type: 'bridge.removeProvider', name: 'notes' }),
          chrome.runtime.sendMessage({ type: 'bridge.providers' }),
          chrome.runtime.sendMessage({ type: 'bridge.diagnosticReport' }),
          chrome.runtime.sendMessage({ type: 'bridge.setDownloadLocation', location: 'https://evil.example/' }),
        ]),
      });
      return res.result;
    }, url);
    assert.equal(replies.length, 6);
    for (const r of replies) {
      assert.equal(r.ok, false);
      assert.match(r.error, /is not accepted from content/);
    }
    assert.equal(JSON.stringify(env.config()), before, 'the configuration is untouched');
  } finally {
    await site.close();
  }
});
