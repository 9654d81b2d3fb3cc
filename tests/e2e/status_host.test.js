// The options page's host status tells the truth as it changes: it follows the
// host's events (a provider that finishes starting shows ready without a
// click), a provider that cannot start shows the server's reason and stderr
// with the fix, Start waits for a connected host and says why, and the
// install and FORBIDDEN paths give what to do.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EXTENSION_ID, fakeMunim, hostConfig, launch, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';

const text = (page, sel) => page.locator(sel).textContent();

test('a provider that is still starting turns ready on the page by itself, from the host\'s events', async () => {
  const dir = tempDir('gnosis-slow-');
  const slow = path.join(dir, 'slow-munim');
  // The server starts only once the test has seen the page say "Starting" (a fixed sleep can end
  // before a loaded machine has opened the page).
  const go = path.join(dir, 'go');
  fs.writeFileSync(slow, `#!/bin/sh\nwhile [ ! -e '${go}' ]; do sleep 0.05; done\nexec '${await fakeMunim()}' "$@"\n`, { mode: 0o755 });
  const env = await launch({ config: hostConfig({ fakemunim: slow, log: path.join(dir, 'calls.jsonl') }) });
  try {
    const options = await env.openOptions();
    await waitFor(async () => /^Starting munim/.test(await text(options, '#host-chip')), { what: 'starting chip' });
    assert.equal(await options.locator('#host-chip').getAttribute('data-kind'), 'degraded');
    assert.match(await text(options, '#host-providers'), /munim \(computer\.\*\) · starting/);
    fs.writeFileSync(go, '');
    // No click: the page follows provider.state / capabilities.changed through the worker.
    await waitFor(async () => (await text(options, '#host-chip')) === 'Connected', { what: 'connected chip', timeoutMs: 15_000 });
    assert.equal(await text(options, '#host-state'), 'Connected — all providers ready');
    assert.match(await text(options, '#host-providers'), /munim \(computer\.\*\) · ready · \d+ tools/);
    assert.ok(Number(await text(options, '#host-capabilities')) > 10);
    assert.equal(await options.locator('#host-problem').isVisible(), false);
  } finally {
    await env.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a Munim that cannot start shows the server's reason, its stderr as preformatted text, and the fix, and still does while the host tries it again", async () => {
  const dir = tempDir('gnosis-broken-');
  const broken = path.join(dir, 'munim.exe');
  // Each start is logged; the second (the host's first retry) waits for the test, so the host
  // reports it starting, with the first failure, for as long as the test looks.
  const starts = path.join(dir, 'starts');
  const go = path.join(dir, 'go');
  fs.writeFileSync(broken, `#!/bin/sh
echo start >> '${starts}'
if [ "$(wc -l < '${starts}')" -ge 2 ]; then while [ ! -e '${go}' ]; do sleep 0.05; done; fi
echo "munim: cannot find C:\\\\Tools\\\\Munim\\\\data" >&2
echo "munim: giving up" >&2
exit 3
`, { mode: 0o755 });
  const env = await launch({ config: hostConfig({ fakemunim: broken, log: path.join(dir, 'calls.jsonl') }) });
  const site = await serve();
  try {
    await env.newPage(site.url('/chat.html'));
    const options = await env.openOptions();
    const down = async () => {
      assert.equal(await text(options, '#host-chip'), 'munim down');
      assert.equal(await options.locator('#host-chip').getAttribute('data-kind'), 'degraded');
      assert.equal(await text(options, '#host-problem-title'), 'munim could not start');
      assert.match(await text(options, '#host-problem-reason'), /exited \(exit status 3\) before answering initialize/);
      assert.equal(await options.locator('#host-stderr').evaluate((el) => el.tagName), 'PRE');
      assert.match(await text(options, '#host-stderr'), /munim: cannot find C:\\Tools\\Munim\\data\nmunim: giving up/);
      assert.match(await text(options, '#host-fix'), /Edit it on the setup page/);
      assert.equal(await options.locator('#host-setup-link').getAttribute('href'), `chrome-extension://${EXTENSION_ID}/bridge/setup/setup.html`);
      assert.equal(await text(options, '#host-fix-command'), 'gnosis-host doctor');
      assert.equal(await text(options, '#host-state'), 'Connected — munim could not start');
      assert.match(await text(options, '#host-providers'), /munim \(computer\.\*\) · down/);
    };
    await waitFor(async () => options.locator('#host-problem').isVisible(), { what: 'problem card', timeoutMs: 15_000 });
    await down();
    // The retry under way: the host says starting, with the last failure; the page, once it has
    // that health (Check again), still shows the failure.
    await waitFor(() => fs.existsSync(starts) && fs.readFileSync(starts, 'utf8').split('\n').length > 2, { what: 'the host trying munim again' });
    await options.evaluate((type) => {
      const sendMessage = chrome.runtime.sendMessage.bind(chrome.runtime);
      chrome.runtime.sendMessage = (message, ...rest) => sendMessage(message, ...rest).then((r) => {
        if (message?.type === type) window.hostReplies = [...(window.hostReplies || []), r];
        return r;
      });
    }, 'bridge.hostStatus');
    await options.locator('#host-recheck').click();
    const retry = await waitFor(() => options.evaluate(() => (window.hostReplies || []).map((r) => r.health?.providers?.[0]).find((p) => p?.state === 'starting')), { what: 'health saying munim is starting again' });
    assert.match(retry.error, /exited \(exit status 3\) before answering initialize/);
    await down();
    await env.screenshot(options, 'status_munim_down');
  } finally {
    fs.writeFileSync(go, '');
    await env.close();
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('without a host Start is unavailable with the reason, and the install offers this system\'s package and the source checkout\'s command', async () => {
  const env = await launch({ host: false });
  const site = await serve();
  try {
    await env.newPage(site.url('/chat.html'));
    const options = await env.openOptions();
    await options.locator('body[data-ready]').waitFor();
    await waitFor(async () => (await text(options, '#host-chip')) === 'Not found', { what: 'not found chip' });
    assert.equal(await options.locator('#host-chip').getAttribute('data-kind'), 'down');
    const start = options.getByRole('button', { name: 'Start', exact: true });
    assert.equal(await start.isDisabled(), true);
    assert.equal(await options.getByRole('button', { name: 'Stop', exact: true }).isDisabled(), true, 'nothing to stop');
    assert.match(await text(options, '#start-blocked'), /Start needs the host, which does not answer/);
    assert.equal(await options.locator('#start-blocked').isVisible(), true);
    assert.equal(await options.getByRole('button', { name: 'Install the host' }).isVisible(), true);
    assert.match(await text(options, '#host-install-actions .file-name'), /^gnosis-.*-linux-amd64\.deb$/);
    assert.equal(await text(options, '#host-install-box code.command'), 'make install');
    assert.match(await text(options, '#host-advice'), /^Installed it already\?/);
  } finally {
    await env.close();
    await site.close();
  }
});

test('with the host connected Start is available, and Start/Stop follow the armed state', async () => {
  const site = await serve();
  const env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin] });
  try {
    await env.newPage(site.url('/chat.html'));
    const options = await env.openOptions();
    await options.locator('body[data-ready]').waitFor();
    const start = options.getByRole('button', { name: 'Start', exact: true });
    const stop = options.getByRole('button', { name: 'Stop', exact: true });
    await waitFor(async () => !(await start.isDisabled()), { what: 'Start enabled once connected', timeoutMs: 15_000 });
    assert.equal(await options.locator('#start-blocked').isVisible(), false);
    assert.equal(await stop.isDisabled(), true);
    await options.getByLabel('Extract from', { exact: true }).fill('assistant');
    await options.getByLabel('Inject into', { exact: true }).fill('#prompt');
    await start.click();
    await waitFor(async () => (await text(options, '#armed-state')).startsWith('Armed'), { what: 'armed' });
    assert.equal(await start.isDisabled(), true, 'already armed');
    assert.equal(await stop.isDisabled(), false);
    await stop.click();
    await waitFor(async () => !(await start.isDisabled()), { what: 'Start back after Stop' });
    assert.equal(await stop.isDisabled(), true);
  } finally {
    await env.close();
    await site.close();
  }
});

test('FORBIDDEN shows this extension id and the exact command that allows it', async () => {
  const env = await launch({ allowedOrigins: ['chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/'] });
  try {
    const options = await env.openOptions();
    await waitFor(async () => (await options.locator('#host-state').getAttribute('data-code')) === 'HOST_FORBIDDEN', { what: 'forbidden state' });
    assert.match(await text(options, '#host-advice'), new RegExp(`id ${EXTENSION_ID}`));
    assert.equal(await text(options, '#host-advice-command'), `gnosis-host install --extension-id ${EXTENSION_ID}`);
    assert.equal(await options.locator('#host-advice-command').isVisible(), true);
  } finally {
    await env.close();
  }
});
