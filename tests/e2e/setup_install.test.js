// The setup page with no host: the browser's own words, the release package
// for this system (a .deb on Linux, built here from bin/gnosis-host with
// dpkg-deb) fetched in one click from the download location, set on the page
// to a local mirror (no network), what to do with it, and the live wait that
// ends when the host answers. A location with no such file says so.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { hostBinary, registerHost, waitFor } from './lib/harness.js';
import { DEB, VERSION, failedDownload, hostDeb, mirrorRoutes, setupWithoutHost, shots } from './lib/setup_page.js';

let setup;
let env;
let mirror;
let dir;
let deb;
let page;

before(async () => {
  setup = await setupWithoutHost('gnosis-setup-install-', (d) => mirrorRoutes(deb = hostDeb(d)));
  ({ env, mirror, dir, page } = setup);
});
after(() => setup?.close());

const text = (sel) => page.locator(sel).textContent();

test('no host: the browser\'s own words, the package for this system, and nothing else to do yet', async () => {
  await waitFor(async () => (await text('#host-chip')) === 'Not found', { what: 'not found', timeoutMs: 15_000 });
  assert.equal(await text('#host-state'), 'The browser finds no gnosis-host to start.');
  assert.equal(await page.locator('#host-state').getAttribute('data-code'), 'HOST_NOT_FOUND');
  assert.equal(await text('#host-said'), 'The browser says: “Specified native messaging host not found.”');
  assert.match(await text('#host-install-intro'), new RegExp(`gnosis-host ${VERSION.replaceAll('.', '\\.')} for Linux \\(x86-64\\)`));
  assert.equal(await page.locator('#host-install-actions .file-name').textContent(), DEB);
  assert.match(await page.locator('#host-install-actions .other-formats').textContent(), /Fedora and openSUSE \(\.rpm\) · zip archive · SHA256SUMS/);
  assert.equal(await page.locator('#progress-host').getAttribute('data-state'), 'problem');
  assert.equal(await page.locator('#server-body').isVisible(), false, 'step 2 waits for the host');
  const body = await page.locator('body').innerText();
  assert.doesNotMatch(body, /\.exe|\.msi|HOST_NOT_FOUND|`/, 'true on Linux, no raw code, no backtick');
  await shots(page, 'setup_1_no_host');
});

test('a download location without the file says so, with the address it tried', async () => {
  await page.locator('summary', { hasText: 'Download location' }).click();
  const where = page.getByLabel('Where the release files are');
  await where.fill('http://mirror.example.org/gnosis/');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  assert.match(await text('#host-location-error'), /https:\/\//, 'plain http only on this machine');
  assert.match(await failedDownload(page, mirror), new RegExp(`Could not download ${DEB}: the server has no such file\\.`));
  assert.match(await text('#install-state'), new RegExp(`${mirror.origin}/missing/v${VERSION}/${DEB}`));
  assert.equal(await page.locator('#install-state').getAttribute('class'), 'card error');
});

test('Install the host fetches the package from the mirror, says what to do with it, and waits until the host answers', async () => {
  await page.getByLabel('Where the release files are').fill(`${mirror.origin}/rel/v{version}/`);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitFor(async () => (await page.locator('#host-install-actions .other-formats a', { hasText: 'SHA256SUMS' }).getAttribute('href')) === `${mirror.origin}/rel/v${VERSION}/SHA256SUMS`, { what: 'mirror used' });
  await page.getByRole('button', { name: 'Install the host' }).click();
  const file = path.join(dir, 'downloads', DEB);
  await waitFor(() => fs.existsSync(file) && fs.statSync(file).size === fs.statSync(deb).size, { what: 'downloaded package', timeoutMs: 15_000 });
  assert.ok(fs.readFileSync(file).equals(fs.readFileSync(deb)), 'the bytes the mirror serves');
  assert.match(execFileSync('dpkg-deb', ['--field', file, 'Package', 'Version'], { encoding: 'utf8' }), new RegExp(`Package: gnosis\\nVersion: ${VERSION.replaceAll('.', '\\.')}`));
  await waitFor(async () => /Waiting for gnosis-host to answer/.test(await text('#install-state')), { what: 'install steps' });
  assert.match(await text('#install-state'), new RegExp(`Downloaded ${DEB}\\. Open ${DEB} from your downloads with your software installer`));
  assert.equal(await page.locator('#install-state code').textContent(), `sudo apt install ${file}`);
  assert.deepEqual(mirror.requests.filter((r) => r.endsWith('.deb')), [`/missing/v${VERSION}/${DEB}`, `/rel/v${VERSION}/${DEB}`]);
  await shots(page, 'setup_1_downloaded');

  // What installing the package does, done here: the host registered for this browser.
  const configPath = path.join(dir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify({ providers: [] }));
  registerHost(env.userDataDir, { hostPath: hostBinary(), configPath, dir });
  await waitFor(async () => (await text('#host-chip')) === 'Connected', { what: 'connected after the install', timeoutMs: 20_000 });
  assert.equal(await text('#install-state'), 'gnosis-host answers. Installed.');
  assert.equal(await page.locator('#host-install-box').isVisible(), false);
  await waitFor(() => page.locator('#server-body').isVisible(), { what: 'step 2 open' });
});
