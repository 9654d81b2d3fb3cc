// What the setup page said about a failure goes once the state it was about
// has changed: the red "Could not download" box leaves a host card that now
// says Connected (the host installed some other way), and the Munim
// shortcut's failed check leaves once another server was added. Pictured at
// 360, 400 and 480 px (setup_stale_<state>_<width>.png).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { REPO, hostBinary, registerHost, waitFor } from './lib/harness.js';
import { DEB, failedDownload, setupWithoutHost, shots } from './lib/setup_page.js';

let setup;
let env;
let mirror;
let dir;
let page;

before(async () => {
  setup = await setupWithoutHost('gnosis-setup-stale-');
  ({ env, mirror, dir, page } = setup);
});
after(() => setup?.close());

const text = (sel) => page.locator(sel).textContent();

test('a failed download leaves the host card once the host answers', async () => {
  await waitFor(async () => (await text('#host-chip')) === 'Not found', { what: 'not found', timeoutMs: 15_000 });
  assert.match(await failedDownload(page, mirror), new RegExp(`Could not download ${DEB}`));

  // Installed from a terminal instead: the host registered for this browser, no download involved.
  const configPath = path.join(dir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify({ providers: [] }));
  registerHost(env.userDataDir, { hostPath: hostBinary(), configPath, dir });
  await waitFor(async () => (await text('#host-chip')) === 'Connected', { what: 'connected', timeoutMs: 20_000 });
  await waitFor(async () => !(await page.locator('#install-state').isVisible()), { what: 'the failed download gone' });
  assert.doesNotMatch(await page.locator('#step-host').innerText(), /Could not download/);
  await shots(page, 'setup_stale_connected');
});

test("the Munim shortcut's failed check leaves once another server was added", async () => {
  await waitFor(() => page.locator('#server-body').isVisible(), { what: 'step 2 open', timeoutMs: 15_000 });
  const missing = path.join(dir, 'no-such-munim');
  await page.getByLabel("Munim's program", { exact: true }).fill(missing);
  await page.locator('#munim-check').click();
  await waitFor(async () => (await page.locator('#munim-note').getAttribute('data-tone')) === 'bad', { what: 'Munim check failed', timeoutMs: 20_000 });
  assert.ok((await text('#munim-note')).length > 0);

  await page.getByRole('button', { name: 'Add another MCP server' }).click();
  await page.getByLabel('Program', { exact: true }).fill(process.execPath);
  await page.getByLabel('Program', { exact: true }).press('Tab');
  await page.getByLabel('Name', { exact: true }).fill('notes');
  await page.getByLabel('Arguments', { exact: true }).fill(path.join(REPO, 'tests', 'e2e', 'fixtures', 'annotated_mcp.mjs'));
  await page.getByLabel('Environment', { exact: true }).fill(`ANNOTATED_LOG=${path.join(dir, 'notes.jsonl')}`);
  assert.equal(await page.locator('#munim-note').getAttribute('data-tone'), 'bad', 'still said while nothing else changed');
  await page.locator('#server-form').getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await page.locator('#servers li.server[data-name="notes"]').getAttribute('data-state')) === 'ready', { what: 'notes ready', timeoutMs: 20_000 });
  await waitFor(async () => (await text('#munim-note')) === '', { what: "the Munim check's error gone" });
  assert.equal(await page.locator('#munim-stderr').isVisible(), false);
  assert.equal(await page.locator('#munim-fix').isVisible(), false);
  assert.equal(await page.getByLabel("Munim's program", { exact: true }).inputValue(), missing, 'the path typed stays');
  await shots(page, 'setup_stale_server_added');
});
