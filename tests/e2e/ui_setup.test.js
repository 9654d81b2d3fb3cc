// The side panel's first run and its honest connection states: a setup card
// instead of a blank panel, Save refusing what Run would refuse (at the field),
// Test connection naming refused, DNS, TLS, timeout and HTTP status in bounded
// attempts, and a retry that shows its reason and countdown with Stop.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launch, tempDir, waitFor } from './lib/harness.js';
import { startModelServer } from './lib/model_server.js';
import { serve } from './lib/server.js';
import { openPanelAndTarget, storeSettings } from './lib/agent_fixture.js';

let env;
let site;
before(async () => {
  site = await serve();
  env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*', 'https://127.0.0.1/*', 'https://*/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

const fast = { maxSteps: 5, temperature: 0, requestTimeoutMs: 5000, retryBaseMs: 20, retryMaxMs: 40, coordinateMode: 'normalized', connection: 'direct', compactAtTokens: 32000, keepScreenshots: 20, rememberKey: false };

async function freshPanel() {
  const panel = await env.openExtensionPage('agent/panel/sidepanel.html');
  await panel.waitForSelector('body[data-ready="true"]');
  return panel;
}

test('first open with no model shows the setup card; Save refuses what Run refuses, at the field; a valid save hides it', async () => {
  const panel = await freshPanel();
  try {
    await panel.evaluate(async () => { await chrome.storage.local.clear(); await chrome.storage.session.clear(); });
    await panel.reload();
    await panel.waitForSelector('body[data-ready="true"]');
    assert.equal(await panel.locator('#setup').isVisible(), true, 'setup card shown');
    assert.equal(await panel.locator('#setup-title').textContent(), 'Connect a model');
    await panel.fill('#setup-apiUrl', 'http://example.com/v1');
    await panel.click('#setup-save');
    await panel.waitForSelector('#setup-status[data-tone="error"]');
    assert.match(await panel.textContent('#setup-apiUrl-error'), /Plain http:\/\/ is allowed only for a server on this machine/);
    assert.equal(await panel.getAttribute('#setup-apiUrl', 'aria-invalid'), 'true');
    assert.match(await panel.textContent('#setup-model-error'), /model that accepts images/);
    assert.match(await panel.textContent('#setup-status'), /^Not saved: 2 fields need a fix/);
    const stored = await panel.evaluate(async () => (await chrome.storage.local.get('agent.settings'))['agent.settings']);
    assert.equal(stored, undefined, 'nothing invalid was saved');

    await panel.fill('#setup-apiUrl', 'http://127.0.0.1:9/v1');
    await panel.fill('#setup-model', 'venus');
    await panel.click('#setup-save');
    await waitFor(async () => !(await panel.locator('#setup').isVisible()), { what: 'setup card gone after a valid save' });
    assert.equal(await panel.getAttribute('#setup-apiUrl', 'aria-invalid'), null);

    // The Settings form applies the same rules, inline.
    await panel.click('#show-settings');
    await panel.fill('#maxSteps', '500');
    await panel.fill('#apiUrl', '');
    await panel.click('#save');
    await panel.waitForSelector('#settings-status[data-tone="error"]');
    assert.match(await panel.textContent('#maxSteps-error'), /Maximum steps must be a number from 1 to 200/);
    assert.match(await panel.textContent('#apiUrl-error'), /The API URL is empty/);
    assert.doesNotMatch(await panel.textContent('#settings-status'), /Saved/);
    const after = await panel.evaluate(async () => (await chrome.storage.local.get('agent.settings'))['agent.settings']);
    assert.equal(after.apiUrl, 'http://127.0.0.1:9/v1', 'the invalid form was not saved');
  } finally {
    await panel.close();
  }
});

test('an error card the person has fixed since is marked resolved, not shown as current', async () => {
  const panel = await freshPanel();
  try {
    await storeSettings(panel, { ...fast, apiUrl: '', model: 'venus' });
    await panel.fill('#task', 'Anything');
    await panel.click('#run');
    const li = panel.locator('#log li.blocked').last();
    await li.waitFor();
    assert.match(await li.getAttribute('class'), /\berror\b/);
    await panel.click('#show-settings');
    await panel.fill('#apiUrl', 'https://api.example.com/v1');
    await panel.fill('#model', 'venus');
    await panel.click('#save');
    await panel.waitForSelector('#settings-status:has-text("Saved.")');
    assert.match(await li.getAttribute('class'), /\bresolved\b/);
    assert.doesNotMatch(await li.getAttribute('class'), /\berror\b/);
    assert.match(await li.textContent(), /Resolved: the settings were saved since\./);
    assert.equal(await li.locator('button').count(), 0, 'no "Open settings" on a resolved card');
  } finally {
    await panel.close();
  }
});

/** A TCP port nothing listens on. */
async function closedPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** An HTTPS server with a self-signed certificate the browser does not trust. */
function selfSignedServer(dir) {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
  const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => res.end('{}'));
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

async function testWith(panel, apiUrl, { timeoutMs = 5000 } = {}) {
  await panel.click('#show-settings');
  await panel.fill('#apiUrl', apiUrl);
  await panel.fill('#model', 'venus');
  await panel.locator('summary', { hasText: 'Advanced' }).evaluate((s) => { s.parentElement.open = true; });
  await panel.fill('#requestTimeoutMs', String(timeoutMs));
  await panel.click('#test-connection');
  await waitFor(async () => ['ok', 'error'].includes(await panel.getAttribute('#settings-status', 'data-tone')), { what: 'test result', timeoutMs: 20_000 });
  return { kind: await panel.getAttribute('#settings-status', 'data-kind'), text: await panel.textContent('#settings-status') };
}

test('Test connection tells apart refused, DNS, TLS, timeout and HTTP status, in bounded attempts', async () => {
  const dir = tempDir('gnosis-tls-');
  const tls = await selfSignedServer(dir);
  const hang = http.createServer(() => {}); // accepts, never answers
  await new Promise((r) => hang.listen(0, '127.0.0.1', r));
  const unauthorized = await startModelServer(() => ({ status: 401, body: JSON.stringify({ error: { message: 'invalid api key' } }) }));
  const panel = await freshPanel();
  try {
    const refused = await testWith(panel, `http://127.0.0.1:${await closedPort()}/v1`);
    assert.equal(refused.kind, 'refused', refused.text);
    assert.match(refused.text, /Connection refused/);
    assert.doesNotMatch(refused.text, /attempts/, 'not retried');

    const dns = await testWith(panel, 'https://gnosis-test.invalid/v1');
    assert.equal(dns.kind, 'dns', dns.text);
    assert.match(dns.text, /could not be resolved \(DNS\)/);

    const cert = await testWith(panel, `https://127.0.0.1:${tls.address().port}/v1`);
    assert.equal(cert.kind, 'tls', cert.text);
    assert.match(cert.text, /TLS: ERR_CERT_/);

    const t0 = Date.now();
    const slow = await testWith(panel, `http://127.0.0.1:${hang.address().port}/v1`, { timeoutMs: 400 });
    assert.equal(slow.kind, 'timeout', slow.text);
    assert.match(slow.text, /No answer within 0.4 s.*\(3 attempts, [\d.]+ s in all\)/);
    assert.ok(Date.now() - t0 < 10_000, 'bounded: three short attempts, not 120 s');

    const http401 = await testWith(panel, unauthorized.url);
    assert.equal(http401.kind, 'http', http401.text);
    assert.match(http401.text, /HTTP 401 \(the API key is missing, wrong or expired\): invalid api key/);
    assert.equal(unauthorized.requests.length, 1, 'a 401 is not retried');
  } finally {
    await panel.close();
    tls.close();
    hang.close();
    await unauthorized.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('Test connection shows its progress while it waits', async () => {
  const hang = http.createServer(() => {});
  await new Promise((r) => hang.listen(0, '127.0.0.1', r));
  const panel = await freshPanel();
  try {
    await storeSettings(panel, { ...fast, apiUrl: `http://127.0.0.1:${hang.address().port}/v1`, model: 'venus', requestTimeoutMs: 1500 });
    await panel.click('#show-settings');
    await panel.click('#test-connection');
    await panel.waitForSelector('#settings-status[data-tone="busy"] .spinner');
    await panel.waitForFunction(() => /attempt 1/.test(document.getElementById('settings-status').textContent));
    assert.match(await panel.textContent('#settings-status'), /^Testing 127\.0\.0\.1:\d+… attempt 1, up to 1\.5 s \(the test ends within 24 s\)\.$/);
    assert.equal(await panel.textContent('#test-connection'), 'Cancel', 'the running test can be cancelled');
    assert.equal(await panel.isDisabled('#setup-test'), true, 'one test at a time');
  } finally {
    await panel.close();
    hang.close();
  }
});

test("a run's retries show the reason and a countdown, with Stop", async () => {
  const model = await startModelServer(() => ({ status: 503, body: 'busy' }));
  const { panel, target } = await openPanelAndTarget(env, site.url('/chat.html?retry'));
  try {
    await storeSettings(panel, { ...fast, apiUrl: model.url, model: 'venus', retryBaseMs: 3000, retryMaxMs: 3000 });
    await panel.fill('#task', 'Do it');
    await panel.click('#run');
    await panel.waitForSelector('#retry:not([hidden])', { timeout: 15_000 });
    const first = await panel.textContent('#retry-text');
    assert.match(first, /^HTTP 503 — retrying in [1-3] s \(attempt 2\)$/);
    await waitFor(async () => (await panel.textContent('#retry-text')) !== first, { what: 'countdown moves', timeoutMs: 10_000 });
    await panel.click('#retry-stop');
    await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]');
    assert.equal(await panel.locator('#retry').isVisible(), false);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});
