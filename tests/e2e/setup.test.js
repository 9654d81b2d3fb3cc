// The guided first run, as a person with the host installed and no MCP
// server yet takes it: installing the extension opens the setup page; step 1
// finds the host; step 2 adds the fake Munim through the Munim shortcut (the
// host's providers.check speaks at the field) and shows it ready with its
// tools; step 3 opens a chat page and links to the options page, where the
// person arms it; a tool call written by the "model" then runs. No terminal.
// Screenshots of each step at 360, 400 and 480 px (lib/setup_page.js).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { EXTENSION_ORIGIN, REPO, SETUP_PAGE, fakeMunim, launch, readJsonl, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { sent, waitForSent } from './lib/bridge.js';
import { shots } from './lib/setup_page.js';

let env;
let site;
let dir;
let log;

before(async () => {
  site = await serve();
  dir = tempDir('gnosis-setup-');
  log = path.join(dir, 'calls.jsonl');
  // A fresh user: the host is installed, its configuration names no server.
  // The host's environment reaches its servers, so the Munim the page adds logs its calls here.
  env = await launch({ setupPage: true, grantOrigins: ['http://127.0.0.1/*'], config: { providers: [] }, hostEnv: { FAKEMUNIM_LOG: log } });
});
after(async () => {
  await env?.close();
  await site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const text = (page, sel) => page.locator(sel).textContent();

test('installing the extension opens the setup page, which finds the host and asks for an MCP server', async () => {
  const page = env.setupPage;
  assert.ok(page, 'the setup page opened by itself');
  assert.equal(page.url(), `${EXTENSION_ORIGIN}${SETUP_PAGE}`);
  await page.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await text(page, '#host-chip')) === 'Connected', { what: 'host connected', timeoutMs: 15_000 });
  assert.match(await text(page, '#host-state'), /^Connected: gnosis-host answers/);
  assert.match(await text(page, '#host-version'), / · protocol 2$/);
  assert.equal(await page.locator('#progress-host').getAttribute('data-state'), 'done');
  assert.equal(await page.locator('#host-problem').isVisible(), false, 'no MCP server is step 2\'s business, not said twice');
  await waitFor(async () => (await text(page, '#server-chip')) === 'No server yet', { what: 'step 2 open' });
  assert.equal(await page.locator('#server-body').isVisible(), true);
  assert.equal(await page.locator('#site-body').isVisible(), false);
  assert.match(await text(page, '#site-locked'), /once an MCP server is ready/);
  assert.equal(await page.getByLabel("Munim's program").getAttribute('placeholder'), '/opt/munim/munim', 'a path true on Linux');
  assert.doesNotMatch(await page.locator('body').innerText(), /munim\.exe|`|HOST_|INVALID_ARGUMENTS/);
  await shots(page, 'setup_1_host');
});

test('the Munim shortcut: a wrong path is said at the field, the right one is checked, added, and runs with its tools', async () => {
  const page = env.setupPage;
  const munim = page.getByLabel("Munim's program");
  await munim.fill(path.join(dir, 'no-such-munim'));
  await munim.press('Tab');
  await waitFor(async () => (await page.locator('#munim-note').getAttribute('data-tone')) === 'bad', { what: 'not found at the field' });
  assert.match(await text(page, '#munim-note'), /no-such-munim/);
  assert.equal(await page.getByRole('button', { name: 'Add Munim' }).isDisabled(), true);

  await munim.fill(await fakeMunim());
  await page.getByRole('button', { name: 'Check', exact: true }).first().click();
  await waitFor(async () => (await page.locator('#munim-note').getAttribute('data-tone')) === 'ok', { what: 'check ok', timeoutMs: 20_000 });
  assert.match(await text(page, '#munim-note'), /answered as an MCP server and lists \d+ tools/);
  await shots(page, 'setup_2_munim_checked');

  await page.getByRole('button', { name: 'Add Munim' }).click();
  const server = page.locator('#servers li.server[data-name="munim"]');
  await waitFor(async () => (await server.getAttribute('data-state')) === 'ready', { what: 'munim ready', timeoutMs: 20_000 });
  assert.match(await server.locator('.server-prefix').textContent(), /^computer\.\*$/);
  await server.locator('summary').click();
  assert.ok((await server.locator('.tools li').allTextContents()).includes('computer.echo'));
  assert.equal(await text(page, '#server-chip'), 'Ready');
  assert.equal(await page.locator('#progress-server').getAttribute('data-state'), 'done');
  const saved = env.config().providers;
  assert.deepEqual(saved.map((p) => [p.name, p.command]), [['munim', await fakeMunim()]], 'written into the host\'s configuration');
  await shots(page, 'setup_2_server_ready');
});

test('step 3: open a chat page, arm it from the options page it links to, and a tool call runs', async () => {
  const page = env.setupPage;
  await waitFor(() => page.locator('#site-body').isVisible(), { what: 'step 3 open' });
  assert.ok((await page.locator('#presets button').allTextContents()).includes('ChatGPT'));
  const chatOpened = env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(site.origin) });
  await page.getByLabel('Or any page').fill(site.url('/chat.html'));
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  const chat = await chatOpened;
  await chat.waitForLoadState();
  await page.bringToFront();
  const row = page.locator(`#sites li.site[data-origin="${site.origin}"]`);
  await waitFor(() => row.isVisible(), { what: 'the chat page listed' });
  assert.equal(await row.getAttribute('data-armed'), 'false');
  await shots(page, 'setup_3_site');

  const optionsOpened = env.context.waitForEvent('page', { predicate: (p) => p.url().includes('bridge/options/options.html') });
  await row.getByRole('link', { name: `Arm ${site.origin}` }).click();
  const options = await optionsOpened;
  await options.locator('body[data-ready]').waitFor();
  assert.equal(await text(options, '#current-origin'), site.origin);
  await options.getByLabel('Extract from', { exact: true }).fill('.assistant');
  await options.getByLabel('Inject into', { exact: true }).fill('#prompt');
  await options.getByLabel('Auto-send', { exact: true }).check();
  await options.getByLabel('Send button', { exact: true }).fill('#send');
  // echo is read-only: suggested Allow for a new site.
  await waitFor(async () => (await options.locator('#grants-list li.grant[data-name="computer.echo"] input:checked').getAttribute('value')) === 'allow', { what: 'echo suggested allow', timeoutMs: 15_000 });
  await options.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await text(options, '#armed-state')).startsWith('Armed'), { what: 'armed' });

  await page.bringToFront();
  await waitFor(async () => (await row.getAttribute('data-armed')) === 'true', { what: 'armed on the setup page' });
  assert.equal(await text(page, '#site-chip'), 'Armed');
  assert.equal(await page.locator('#progress-site').getAttribute('data-state'), 'done');
  const [, picture] = await shots(page, 'setup_3_armed');
  if (process.env.GNOSIS_UPDATE_IMAGES === '1') fs.copyFileSync(picture, path.join(REPO, 'docs', 'images', 'setup.png'));

  await chat.evaluate(() => window.chat.stream('{"capability": "computer.echo", "arguments": {"from": "setup"}}'));
  const [reply] = await waitForSent(chat, 1, 15_000);
  assert.equal(JSON.parse(reply).ok, true);
  assert.deepEqual(readJsonl(log).filter((c) => c.tool === 'echo').map((c) => c.arguments), [{ from: 'setup' }]);
  assert.equal((await sent(chat)).length, 1);
});
