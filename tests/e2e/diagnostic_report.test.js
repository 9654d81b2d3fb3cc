// "Copy diagnostic report" on the options page and the setup page: the
// extension's versions (extension, protocols, browser, system) above the
// host's own report (versions, doctor, configuration, provider states with
// stderr, log), and never a secret: a provider's environment value and
// argument, the agent's API key, a mirror's token are seeded and must not be
// in the copied text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { annotatedProvider, fakeMunim, hostConfig, launch, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';

const SECRETS = {
  providerEnv: 'sk-provider-env-93c1f0',
  providerArg: 'arg-secret-5d21aa',
  apiKey: 'sk-agent-key-77b3e9',
  mirrorToken: 'mirror-token-0e4c8d',
};

let env;
let version;
let reader;
let dir;

before(async () => {
  dir = tempDir('gnosis-report-');
  const notes = annotatedProvider({ log: path.join(dir, 'notes.jsonl') });
  const config = hostConfig({
    fakemunim: await fakeMunim(), log: path.join(dir, 'calls.jsonl'), env: { MUNIM_API_KEY: SECRETS.providerEnv },
    providers: [{ ...notes, args: [...notes.args, `--token=${SECRETS.providerArg}`] }],
  });
  env = await launch({ setupPage: true, config });
  // The clipboard is read back from a web page allowed to (an extension origin cannot be granted it).
  reader = await serve();
  await env.context.grantPermissions(['clipboard-read'], { origin: reader.origin });
  version = await env.evalInWorker(() => chrome.runtime.getManifest().version);
  // The agent's key, kept on this device and for the session; a mirror whose address carries a token.
  await env.evalInWorker(async (s) => {
    await chrome.storage.local.set({ 'agent.apiKey': s.apiKey, 'agent.settings': { apiUrl: 'https://models.example.org/v1', model: 'm' } });
    await chrome.storage.session.set({ 'agent.apiKey': s.apiKey });
    await chrome.storage.local.set({ 'setup:downloadLocation': `https://mirror.example.org/gnosis/v{version}/?token=${s.mirrorToken}` });
  }, SECRETS);
});
after(async () => {
  await env?.close();
  await reader?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What the system clipboard holds now. */
async function clipboard() {
  const page = await env.newPage(reader.url('/chat.html'));
  try {
    await page.bringToFront();
    return await page.evaluate(() => navigator.clipboard.readText());
  } finally {
    await page.close();
  }
}

async function copyReport(page) {
  await page.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await page.locator('#host-chip').getAttribute('data-kind')) === 'connected', { what: 'connected', timeoutMs: 20_000 });
  await page.getByRole('button', { name: 'Copy diagnostic report' }).click();
  await waitFor(async () => /^Copied\./.test(await page.locator('#host-report-state').textContent()), { what: 'copied', timeoutMs: 20_000 });
  const copied = await clipboard();
  assert.equal(copied, await page.locator('#host-report-text').inputValue(), 'the page shows what it copied');
  return copied;
}

function assertReport(text) {
  for (const [what, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `${what} leaked into the report`);
  assert.match(text, /^# Gnosis diagnostic report\n/);
  assert.ok(text.includes(`\nextension: ${version} (development)\n`));
  assert.ok(text.includes('\nprotocols: 2\n'));
  assert.match(text, /\nbrowser: (Chromium|Google Chrome) \d+\.\d+\.\d+\.\d+\n/);
  assert.ok(text.includes('\nsystem: linux/x86-64\n'));
  assert.ok(text.includes('\ndownload location: https://mirror.example.org/gnosis/v{version}/?token=[redacted]\n'));
  assert.match(text, /\nhost: answers: version .*, protocol 2, status ok/);
  for (const section of ['## Extension', '## Host', '## Versions', '## Doctor', '## Configuration', '## Providers', '## Log']) {
    assert.ok(text.includes(`\n${section}\n`), section);
  }
  assert.match(text, /MUNIM_API_KEY/, 'the variable is named');
  assert.match(text, /\[redacted\]/);
}

test('the options page copies one redacted report with the extension\'s lines above the host\'s', async () => {
  const options = await env.openOptions();
  const text = await copyReport(options);
  assertReport(text);
  await options.close();
});

test('the setup page copies the same report', async () => {
  const text = await copyReport(env.setupPage);
  assertReport(text);
});
