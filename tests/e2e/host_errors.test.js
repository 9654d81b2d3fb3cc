// The browser's native-messaging failures reach the person as stable codes
// with advice on the options page (native_client.js's mapping, in Chromium).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';

async function hostState(env) {
  const options = await env.openOptions();
  await waitFor(async () => /^Not connected \(/.test(await options.locator('#host-state').textContent()), { what: 'not connected state' });
  return {
    state: await options.locator('#host-state').textContent(),
    advice: await options.locator('#host-advice').textContent(),
    install: await options.locator('#host-install').isVisible(),
  };
}

test('a manifest that does not allow our extension gives HOST_FORBIDDEN with advice', async () => {
  const env = await launch({ allowedOrigins: ['chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/'] });
  try {
    const s = await hostState(env);
    assert.match(s.state, /\(HOST_FORBIDDEN\): Access to the specified native messaging host is forbidden\./);
    assert.match(s.advice, /allowed_origins/);
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
    const options = await env.openOptions();
    await waitFor(async () => /\(HOST_EXITED\): Native host has exited\./.test(await options.locator('#host-state').textContent()),
      { what: 'HOST_EXITED on the options page', timeoutMs: 20_000 });
    assert.match(await options.locator('#host-advice').textContent(), /gnosis-host doctor/);
  } finally {
    await env.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
