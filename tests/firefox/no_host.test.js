// Firefox with no host registered: the options page must say the host is not
// found (HOST_NOT_FOUND, from Firefox's port.error "No such native
// application ..."), not that it exited, and offer the one-click install.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchFirefox, waitFor } from './lib/firefox.js';

let ff;

before(async () => {
  ff = await launchFirefox({ host: false });
});

after(async () => {
  await ff?.close();
});

test('with no host registered the options page says the host is not found, in Firefox\'s own words, and how to install it', async () => {
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
