// Firefox with no host registered: the options page must say the host is not
// found (HOST_NOT_FOUND, from Firefox's port.error "No such native
// application ..."), not that it exited, and offer the one-click install.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { faultManifest, quotes, readmeFaults } from '../e2e/lib/faults.js';
import { launchFirefox, waitFor } from './lib/firefox.js';
import { unhideableReason } from './lib/system_hosts.js';

// These tests need Firefox to find no host but the one they register: a
// system-wide registration (the .deb's) is hidden from it, or, where this
// machine cannot hide it, they are skipped saying so.
const skip = unhideableReason() || false;
let ff;

before(async () => {
  if (!skip) ff = await launchFirefox({ host: false });
});

after(async () => {
  await ff?.close();
});

test('with no host registered the options page says the host is not found, in Firefox\'s own words, and how to install it', { skip }, async () => {
  const options = await ff.openExtensionPage('bridge/options/options.html');
  const state = await waitFor(async () => {
    const t = await options.text('#host-state');
    return /finds no gnosis-host/.test(t ?? '') && t;
  }, { what: 'host state "not found"', timeoutMs: 15_000 });
  assert.equal(state, 'The browser finds no gnosis-host to start.');
  assert.equal(await options.evaluate("document.querySelector('#host-state').dataset.code"), 'HOST_NOT_FOUND');
  assert.match(await options.text('#host-said'), /No such native application com\.gnosis\.host/);
  assert.match(await options.text('#host-advice'), /does not list this add-on \(gnosis@gnosis\.dev\) in allowed_extensions/);
});

// README's table against what this Firefox says, each fault set up for real
// (the manifest in the profile's home) and connected to as the extension
// connects. Runs last: it leaves a manifest behind.
test("every fault in README's table gives the message the table quotes for Firefox", { skip }, async () => {
  const faults = readmeFaults();
  const options = await ff.openExtensionPage('bridge/options/options.html');
  const manifestFile = path.join(ff.home, '.mozilla', 'native-messaging-hosts', 'com.gnosis.host.json');
  fs.mkdirSync(path.dirname(manifestFile), { recursive: true });
  const dir = fs.mkdtempSync(path.join(ff.dir, 'faults-'));
  for (const f of faults) {
    const text = faultManifest(f.cause, dir, 'allowed_extensions');
    if (text === null) fs.rmSync(manifestFile, { force: true });
    else fs.writeFileSync(manifestFile, text);
    const got = await options.evaluate(`new Promise((resolve) => {
      const port = browser.runtime.connectNative('com.gnosis.host');
      port.onDisconnect.addListener((p) => resolve(p.error ? p.error.message : null));
      port.onMessage.addListener(() => resolve('(a message)'));
      port.postMessage({ id: 'fault', method: 'health' });
    })`);
    assert.ok(quotes(f.firefox, got), `"${f.cause}": Firefox says ${JSON.stringify(got)}, README's table quotes ${JSON.stringify(f.firefox)}`);
  }
});
