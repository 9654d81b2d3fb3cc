// The release installed as a person with only a browser installs it: the
// Chrome package built by the real release tool (gnosis-V-chrome.zip),
// unzipped into a folder of its own and loaded unpacked from there; the host
// of the same release installed by its own `gnosis-host install`, whose
// manifest names the extension ids it lets in. The id the browser gives the
// unzipped folder must be one of them, and the host must trust the caller:
// the setup page and the options page then say Connected, with the host's
// version equal to the extension's (both the VERSION file) and the protocol
// the extension speaks, and the host starts its MCP server, which it does only
// for our extension.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { PROTOCOL } from '../../extension/shared/core/protocol.js';
import { SETUP_PAGE, launch, tempDir, waitFor } from './lib/harness.js';
import { VERSION, buildPackages, checksummed, installHost, releaseHost, unzip } from './lib/release_packages.js';

const ZIP = `gnosis-${VERSION}-chrome.zip`;

let dir;
let folder;
let registered;
let env;

/** The unzipped package's manifest. */
const manifest = () => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'));

/** Waits until page's host card says Connected; returns what it shows. */
async function connected(page) {
  await waitFor(async () => (await page.locator('#host-chip').textContent()) === 'Connected', { what: 'host connected', timeoutMs: 15_000 });
  return {
    version: await page.locator('#host-version').textContent(),
    extension: await page.evaluate(() => ({ version: chrome.runtime.getManifest().version })),
  };
}

before(async () => {
  dir = tempDir('gnosis-release-package-');
  const dist = buildPackages(path.join(dir, 'dist'), ['chrome']);
  assert.deepEqual(checksummed(dist), [ZIP]);
  folder = unzip(path.join(dist, ZIP), path.join(dir, 'Downloads', `gnosis-${VERSION}-chrome`));
  // Said before the browser starts: without the key it would wait for a setup page at our id in vain.
  assert.ok(manifest().key, `${ZIP} has no key: the browser would name the extension after its folder, an id no host trusts`);
  registered = installHost(releaseHost(dir), path.join(dir, 'home'), 'chromium');
  env = await launch({ extensionDir: folder, setupPage: true, hostPath: registered.path, allowedOrigins: registered.allowed_origins });
});
after(async () => {
  await env?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the unzipped Chrome package is the release\'s, and the browser gives it the id the installed host lets in', async () => {
  const m = manifest();
  assert.equal(m.version, VERSION);
  assert.equal(m.browser_specific_settings, undefined, 'the Chrome package, not the source folder');
  assert.equal(fs.existsSync(path.join(folder, 'test')), false);
  const id = await env.evalInWorker(() => chrome.runtime.id);
  assert.deepEqual(registered.allowed_origins, [`chrome-extension://${id}/`]);
});

test('the setup page it opens on install finds the host connected, of the same version and protocol, and its server ready', async () => {
  const page = env.setupPage;
  assert.ok(page.url().endsWith(SETUP_PAGE));
  await page.locator('body[data-ready]').waitFor();
  const seen = await connected(page);
  assert.equal(seen.extension.version, VERSION);
  assert.equal(seen.version, `${VERSION} · protocol ${PROTOCOL.max}`);
  assert.match(await page.locator('#host-state').textContent(), /^Connected: gnosis-host answers/);
  await waitFor(async () => (await page.locator('#servers li.server[data-name="munim"]').getAttribute('data-state')) === 'ready',
    { what: 'the host started munim for this extension', timeoutMs: 15_000 });
});

test('the options page says the same: connected, matching versions, the server ready', async () => {
  const options = await env.openOptions();
  const seen = await connected(options);
  assert.equal(seen.extension.version, VERSION);
  assert.equal(seen.version, `${VERSION} · protocol ${PROTOCOL.max}`);
  assert.equal(await options.locator('#host-update').isVisible(), false, 'no update asked for');
  await waitFor(async () => /munim/.test(await options.locator('#host-providers li.provider.ready').textContent().catch(() => '')),
    { what: 'munim ready in the Host section', timeoutMs: 15_000 });
  await options.close();
});
