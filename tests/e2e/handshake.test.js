// The version handshake against a real older host: the last gnosis-host that
// spoke protocol 1 (no "protocol" in health), built from this repository's
// history (lib/setup_page.js olderHost). The setup page, the options page's
// Host section and the Side Panel say the host is the older side and exactly
// how to update it; the worker sends that host nothing but health (a tee in
// front of the host records every request the browser wrote to it); after
// the update, Check again meets the new host.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fakeMunim, hostBinary, hostConfig, launch, registerHost, tempDir, waitFor } from './lib/harness.js';
import { olderHost, shots } from './lib/setup_page.js';
import { serve } from './lib/server.js';

const VERSION = JSON.parse(fs.readFileSync(new URL('../../extension/manifest.json', import.meta.url), 'utf8')).version;

let env;
let dir;
let wire;

before(async () => {
  dir = tempDir('gnosis-handshake-');
  wire = path.join(dir, 'requests.bin');
  // The browser's requests to the host, as written to its stdin.
  const teed = path.join(dir, 'older-host');
  fs.writeFileSync(teed, `#!/bin/sh\ntee -a '${wire}' | '${olderHost('0.0.9')}' "$@"\n`, { mode: 0o755 });
  env = await launch({
    setupPage: true, grantOrigins: ['http://127.0.0.1/*'], hostPath: teed,
    config: hostConfig({ fakemunim: await fakeMunim(), log: path.join(dir, 'calls.jsonl') }),
  });
});
after(async () => {
  await env?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every method the browser has sent the host so far. */
function methodsSent() {
  if (!fs.existsSync(wire)) return [];
  return [...fs.readFileSync(wire, 'latin1').matchAll(/"method":"([^"]+)"/g)].map((m) => m[1]);
}

test('the setup page says the host is older, with the exact update for this system, and goes no further', async () => {
  const page = env.setupPage;
  await page.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await page.locator('#host-chip').textContent()) === 'Update needed', { what: 'update needed', timeoutMs: 15_000 });
  assert.equal(await page.locator('#host-state').getAttribute('data-code'), 'HOST_INCOMPATIBLE');
  assert.equal(await page.locator('#host-update-title').textContent(), 'gnosis-host is older than this extension');
  assert.equal(await page.locator('#host-update-message').textContent(),
    `gnosis-host 0.0.9 speaks protocol 1; this extension (${VERSION}) speaks protocol 2. Update gnosis-host; until then the extension sends it nothing but a health check.`);
  assert.match(await page.locator('#host-update-text').textContent(), new RegExp(`Install gnosis-host ${VERSION.replaceAll('.', '\\.')}, the release that matches this extension`));
  assert.equal(await page.locator('#host-update-actions .file-name').textContent(), `gnosis-${VERSION}-linux-amd64.deb`);
  assert.equal(await page.getByRole('button', { name: 'Download the update' }).isVisible(), true);
  assert.equal(await page.locator('#host-update-command').textContent(), 'git pull && make install');
  assert.equal(await page.locator('#host-version').textContent(), '0.0.9 · protocol 1');
  assert.equal(await page.locator('#server-body').isVisible(), false, 'no MCP server step against a host that does not fit');
  assert.doesNotMatch(await page.locator('body').innerText(), /\.exe|\.msi|HOST_INCOMPATIBLE|`/);
  await shots(page, 'setup_1_host_older');
});

test('the options page and the Side Panel say the same; Start waits for the update', async () => {
  const site = await serve();
  const chat = await env.newPage(site.url('/chat.html'));
  const options = await env.openOptions();
  await waitFor(async () => (await options.locator('#host-chip').textContent()) === 'Update needed', { what: 'options: update needed', timeoutMs: 15_000 });
  assert.equal(await options.locator('#host-update-title').textContent(), 'gnosis-host is older than this extension');
  assert.equal(await options.locator('#host-update-command').textContent(), 'git pull && make install');
  assert.equal(await options.locator('#current-origin').textContent(), site.origin);
  assert.equal(await options.getByRole('button', { name: 'Start', exact: true }).isDisabled(), true);
  assert.match(await options.locator('#start-blocked').textContent(), /Start needs a host this extension can talk to: update first/);
  await shots(options, 'options_host_older');
  await options.close();
  await chat.close();
  await site.close();

  const panel = await env.openExtensionPage('agent/panel/sidepanel.html');
  await waitFor(() => panel.locator('#host-banner').isVisible(), { what: 'side panel banner', timeoutMs: 15_000 });
  assert.match(await panel.locator('#host-banner').textContent(), /^gnosis-host is older than this extension\. gnosis-host 0\.0\.9 speaks protocol 1; .* How to update$/);
  await shots(panel, 'sidepanel_host_older');
  await panel.close();
});

test('the worker refuses every other request and says why; the host received nothing but health', async () => {
  const page = env.setupPage;
  const replies = await page.evaluate(() => Promise.all([
    chrome.runtime.sendMessage({ type: 'bridge.providers' }),
    chrome.runtime.sendMessage({ type: 'bridge.setProvider', provider: { name: 'x', command: '/bin/true' } }),
    chrome.runtime.sendMessage({ type: 'bridge.getGrants', origin: 'http://127.0.0.1:1' }),
    chrome.runtime.sendMessage({ type: 'bridge.capabilityPrompt' }),
  ]));
  assert.deepEqual(replies.slice(0, 2).map((r) => [r.ok, r.code]), [[false, 'HOST_INCOMPATIBLE'], [false, 'HOST_INCOMPATIBLE']]);
  assert.match(replies[0].error, /^providers\.list was not sent: gnosis-host 0\.0\.9 speaks protocol 1; this extension/);
  for (const r of replies.slice(2)) {
    assert.equal(r.ok, false);
    assert.match(r.error, /was not sent: gnosis-host 0\.0\.9 speaks protocol 1/);
  }
  // A health afterwards marks that every request above has been judged.
  await page.evaluate(() => chrome.runtime.sendMessage({ type: 'bridge.hostStatus', refresh: true }));
  const methods = methodsSent();
  assert.ok(methods.length > 0, 'the tee recorded the requests');
  assert.deepEqual([...new Set(methods)], ['health']);
});

test('once the host is updated, Check again meets it and setup goes on', async () => {
  const page = env.setupPage;
  registerHost(env.userDataDir, { hostPath: hostBinary(), configPath: env.configPath, dir: env.dir });
  await page.getByRole('button', { name: 'Check again' }).click();
  await waitFor(async () => (await page.locator('#host-chip').textContent()) === 'Connected', { what: 'connected to the updated host', timeoutMs: 15_000 });
  assert.match(await page.locator('#host-version').textContent(), / · protocol 2$/);
  await waitFor(() => page.locator('#server-body').isVisible(), { what: 'step 2 open' });
  await waitFor(async () => (await page.locator('#servers li.server[data-name="munim"]').getAttribute('data-state')) === 'ready', { what: 'munim listed', timeoutMs: 15_000 });
});
