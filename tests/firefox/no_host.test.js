// Firefox with no host registered: the options page must say the host is not
// installed (HOST_NOT_FOUND, from Firefox's port.error "No such native
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

test('with no host registered the options page says HOST_NOT_FOUND and how to install it', async () => {
  const options = await ff.openExtensionPage('bridge/options/options.html');
  const state = await waitFor(async () => {
    const t = await options.text('#host-state');
    return /^Not connected/.test(t ?? '') && t;
  }, { what: 'host state "Not connected"', timeoutMs: 15_000 });
  assert.match(state, /HOST_NOT_FOUND/);
  assert.match(state, /No such native application com\.gnosis\.host/);
  assert.match(await options.text('#host-advice'), /not installed for Firefox/);
});
