// The browser's native-messaging failures reach the person on the options page
// as a plain sentence, the browser's own words apart, and advice true on this
// system; the stable code rides in data-code (native_client.js's mapping, in Chromium).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { faultManifest, quotes, readmeFaults } from './lib/faults.js';
import { HOST_NAME, launch, tempDir, waitFor } from './lib/harness.js';

/** The Host section once it shows a failure (code: that failure's, when the browser may report others first). */
async function hostState(env, code) {
  const options = await env.openOptions();
  await waitFor(async () => {
    const shown = await options.locator('#host-state').getAttribute('data-code');
    return (code ? shown === code : shown !== '') && (await options.locator('#host-chip').getAttribute('data-kind')) === 'down';
  }, { what: code ? `${code} on the options page` : 'not connected state', timeoutMs: 20_000 });
  return {
    code: await options.locator('#host-state').getAttribute('data-code'),
    state: await options.locator('#host-state').textContent(),
    said: await options.locator('#host-said').textContent(),
    advice: await options.locator('#host-advice').textContent(),
    command: await options.locator('#host-advice-command').textContent(),
    install: await options.locator('#host-install').isVisible(),
  };
}

test('a manifest that does not allow our extension gives HOST_FORBIDDEN with advice', async () => {
  const env = await launch({ allowedOrigins: ['chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/'] });
  try {
    const s = await hostState(env);
    assert.equal(s.code, 'HOST_FORBIDDEN');
    assert.equal(s.state, 'gnosis-host does not let this extension in.');
    assert.equal(s.said, 'The browser says: “Access to the specified native messaging host is forbidden.”');
    assert.match(s.advice, /allowed_origins/);
    assert.equal(s.install, false);
  } finally {
    await env.close();
  }
});

test('a host that exits at once gives HOST_EXITED pointing at gnosis-host doctor', async () => {
  const dir = fs.mkdtempSync('/tmp/gnosis-exit-');
  const exiting = path.join(dir, 'exits');
  // It waits for the browser's first frame and lives a moment longer, so the frames the browser writes
  // on connecting land in the pipe before it exits: a write after the exit makes Chrome report the
  // failed write ("Error when communicating…") instead. A reconnect starts it again, with one frame.
  fs.writeFileSync(exiting, '#!/bin/sh\nhead -c 4 >/dev/null\nsleep 1\nexit 3\n', { mode: 0o755 });
  const env = await launch({ hostPath: exiting });
  try {
    const s = await hostState(env, 'HOST_EXITED');
    assert.equal(s.code, 'HOST_EXITED');
    assert.equal(s.state, 'gnosis-host started and stopped at once.');
    assert.equal(s.said, 'The browser says: “Native host has exited.”');
    assert.match(s.advice, /~\/\.cache\/gnosis\/gnosis-host\.log/, 'the log where it is on this system');
    assert.equal(s.command, 'gnosis-host doctor');
  } finally {
    await env.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// README's table of what the extension shows (written from register.Faults,
// which doctor quotes) against what this Chromium says: each fault is set up
// for real and connected to as the extension connects (connectNative, then a
// message).
test("every fault in README's table gives the message the table quotes for Chromium", async () => {
  const faults = readmeFaults();
  assert.ok(faults.length >= 7, `README's fault table has ${faults.length} rows`);
  const env = await launch({ host: false });
  const dir = tempDir('gnosis-faults-');
  const manifestFile = path.join(env.userDataDir, 'NativeMessagingHosts', `${HOST_NAME}.json`);
  fs.mkdirSync(path.dirname(manifestFile), { recursive: true });
  try {
    for (const f of faults) {
      const text = faultManifest(f.cause, dir);
      if (text === null) fs.rmSync(manifestFile, { force: true });
      else fs.writeFileSync(manifestFile, text);
      const got = await env.evalInWorker((host) => new Promise((resolve) => {
        const port = chrome.runtime.connectNative(host);
        port.onDisconnect.addListener(() => resolve(chrome.runtime.lastError?.message ?? null));
        port.onMessage.addListener(() => resolve('(a message)'));
        port.postMessage({ id: 'fault', method: 'health' });
      }), HOST_NAME);
      assert.ok(quotes(f.chromium, got), `"${f.cause}": Chromium says ${JSON.stringify(got)}, README's table quotes ${JSON.stringify(f.chromium)}`);
    }
  } finally {
    await env.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
