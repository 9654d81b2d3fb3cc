// The options page as a person uses it: host status, eligibility, saved
// pages, Pick with hover highlight and Escape, the live selector check, the
// capability prompt, an open page that writes nothing while nothing changes,
// and the one-click host install when no host answers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fakeMunim, hostBinary, hostConfig, launch, registerHost, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { DEB, VERSION, hostDeb, mirrorRoutes } from './lib/setup_page.js';

describe('options page with the host installed', () => {
  let env;
  let site;
  before(async () => {
    site = await serve();
    // The site may run the computer.* tools, so the capability prompt lists them.
    env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin] });
  });
  after(async () => {
    await env?.close();
    await site?.close();
  });

  test('a page that is not http(s) is not eligible', async () => {
    const options = await env.openOptions();
    await waitFor(async () => options.locator('#eligibility').isVisible(), { what: 'eligibility notice' });
    assert.match(await options.locator('#eligibility').textContent(), /not eligible: only http and https/);
    assert.equal(await options.getByLabel('Extract from', { exact: true }).isDisabled(), true);
    assert.equal(await options.getByRole('button', { name: 'Start', exact: true }).isDisabled(), true);
    await options.close();
  });

  test('host status shows version, providers and capability count', async () => {
    const options = await env.openOptions();
    await waitFor(async () => options.locator('#host-details').isVisible(), { what: 'host details' });
    assert.match(await options.locator('#host-state').textContent(), /^Connected/);
    assert.ok((await options.locator('#host-version').textContent()).length > 0);
    assert.match(await options.locator('#host-version').textContent(), / · protocol 2$/);
    // The card asks again every second: a provider still starting on a loaded machine shows ready then.
    await waitFor(async () => /munim \(computer\.\*\) · ready/.test(await options.locator('#host-providers').textContent())
      && Number(await options.locator('#host-capabilities').textContent()) > 10, { what: 'munim ready, with its tools, in the host card' });
    assert.equal(await options.locator('#host-install').isVisible(), false);
    await options.close();
  });

  test('Pick highlights on hover, fills the field on click, and Escape cancels; the live check shows matches', async () => {
    const chat = await env.newPage(site.url('/chat.html'));
    await chat.evaluate(() => window.chat.stream('Hello there.', { tokenMs: 1 }));
    await chat.evaluate(() => window.chat.stream('Second reply.', { tokenMs: 1 }));
    const options = await env.openOptions();
    await options.locator('body[data-ready]').waitFor();
    assert.equal(await options.locator('#current-origin').textContent(), site.origin);

    await options.getByRole('button', { name: 'Pick Extract from' }).click();
    await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
    const box = await chat.locator('.assistant').first().boundingBox();
    await chat.mouse.move(box.x + 5, box.y + 5);
    await waitFor(() => chat.evaluate(() => document.querySelector('gnosis-pick').shadowRoot.firstChild.style.display === 'block'), { what: 'hover highlight' });
    await chat.mouse.click(box.x + 5, box.y + 5);
    await waitFor(async () => (await options.getByLabel('Extract from', { exact: true }).inputValue()) === '.assistant', { what: 'picked selector' });
    assert.equal(await chat.locator('gnosis-pick', { hasText: 'click the element' }).count(), 0, 'overlay removed');
    assert.equal(await chat.locator('gnosis-matches [role=status]', { hasText: 'Extract from: matches' }).textContent(), 'Extract from: matches 2 elements', 'the matches outlined');
    await waitFor(async () => /✓ matches 2 elements/.test(await options.locator('#source-match').textContent()), { what: 'live check' });

    await options.getByRole('button', { name: 'Pick Send button' }).click();
    await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
    await chat.keyboard.press('Escape');
    await chat.locator('gnosis-pick').waitFor({ state: 'detached' });
    assert.equal(await options.getByLabel('Send button', { exact: true }).inputValue(), '');

    // Destination and send button get selectors unique on the page.
    await options.getByRole('button', { name: 'Pick Send button' }).click();
    await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
    await chat.locator('#send').click({ force: true });
    await waitFor(async () => (await options.getByLabel('Send button', { exact: true }).inputValue()) === '#send', { what: 'picked send button' });
    await options.getByRole('button', { name: 'Pick Inject into' }).click();
    await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
    await chat.locator('#prompt').click();
    await waitFor(async () => (await options.getByLabel('Inject into', { exact: true }).inputValue()) === '#prompt', { what: 'picked destination' });

    await options.getByLabel('Inject into', { exact: true }).fill('no-such-thing');
    await waitFor(async () => /✗ matches nothing/.test(await options.locator('#destination-match').textContent()), { what: 'no match shown' });
    await options.getByLabel('Inject into', { exact: true }).fill('composer');
    await waitFor(async () => /✓ matches 1 element \(#composer, \.composer\)/.test(await options.locator('#destination-match').textContent()), { what: 'match shown' });

    // Saved pages lists the origin once settings were saved (Pick saves).
    await waitFor(async () => (await options.locator('#saved-pages option').allTextContents()).includes(site.origin), { what: 'saved page' });

    // The capability prompt goes into the chat input with one click.
    await options.locator('#destination').dispatchEvent('change');
    await options.getByRole('button', { name: 'Insert into page' }).click();
    await waitFor(async () => (await chat.evaluate(() => window.chat.input())).includes('computer.click'), { what: 'prompt inserted' });
    const prompt = await chat.evaluate(() => window.chat.input());
    assert.match(prompt, /\{"capability": "<name>", "arguments": \{ \.\.\. \}\}/);
    assert.match(prompt, /x \(integer, required, 0\.\.16383\)/);
    await options.getByRole('button', { name: 'Show prompt' }).click();
    await waitFor(async () => (await options.getByRole('textbox', { name: 'Capability prompt' }).inputValue()) === prompt, { what: 'prompt shown' });
    await options.close();
    await chat.close();
  });
  test('Saved pages switches to another origin and loads its settings', async () => {
    const options = await env.openOptions('?origin=https://other.example');
    await options.locator('body[data-ready]').waitFor();
    assert.equal(await options.locator('#current-origin').textContent(), 'https://other.example');
    assert.equal(await options.getByLabel('Inject into', { exact: true }).inputValue(), '');
    await options.getByLabel('Saved pages', { exact: true }).selectOption(site.origin);
    await waitFor(async () => (await options.locator('#current-origin').textContent()) === site.origin, { what: 'switched origin' });
    await waitFor(async () => (await options.getByLabel('Inject into', { exact: true }).inputValue()) === 'composer', { what: 'saved settings loaded' });
    assert.equal(await options.getByLabel('Extract from', { exact: true }).inputValue(), '.assistant');
    await options.close();
  });

  test('an open page that nothing changes keeps asking the worker and writes nothing to its DOM', async () => {
    const chat = await env.newPage(site.url('/chat.html'));
    await chat.evaluate(() => window.chat.stream('Hello there.', { tokenMs: 1 }));
    const options = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}`);
    await options.locator('body[data-ready]').waitFor();
    // The page's rounds, counted: each asks the worker for the site's state once.
    await options.evaluate((type) => {
      const send = chrome.runtime.sendMessage.bind(chrome.runtime);
      window.rounds = 0;
      chrome.runtime.sendMessage = (message, ...rest) => {
        if (message?.type === type) window.rounds++;
        return send(message, ...rest);
      };
    }, 'bridge.getSite');
    const rounds = () => options.evaluate(() => window.rounds);
    // Settled: the host answered, the site's state and tools are shown, the live check has run.
    await waitFor(async () => (await rounds()) >= 3 && /^Connected/.test(await options.locator('#host-state').textContent()), { what: 'the page settled' });
    await options.evaluate(() => {
      window.written = [];
      new MutationObserver((records) => {
        for (const r of records) window.written.push(`${r.type} ${r.target.id || r.target.parentElement?.id || r.target.nodeName} ${r.attributeName || ''}`.trim());
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const from = await rounds();
    await waitFor(async () => (await rounds()) >= from + 3, { what: 'three more rounds' });
    assert.deepEqual(await options.evaluate(() => window.written), [], 'nothing written while nothing changed');
    await options.close();
    await chat.close();
  });
});

describe('options page without a host', () => {
  let env;
  let dir;
  let mirror;
  let deb;
  before(async () => {
    dir = tempDir('gnosis-options-install-');
    deb = hostDeb(dir);
    mirror = await serve({ routes: mirrorRoutes(deb, 'mirror') });
    fs.mkdirSync(path.join(dir, 'downloads'));
    env = await launch({ host: false, downloadDir: path.join(dir, 'downloads') });
  });
  after(async () => {
    await env?.close();
    await mirror?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('one click fetches the host package for this system from the download location, and the page connects once it is installed', async () => {
    const options = await env.openOptions();
    await waitFor(async () => (await options.locator('#host-state').getAttribute('data-code')) === 'HOST_NOT_FOUND', { what: 'not found state' });
    await options.locator('summary', { hasText: 'Download location' }).click();
    await options.getByLabel('Where the release files are').fill(`${mirror.origin}/mirror/v{version}/`);
    await options.getByRole('button', { name: 'Save', exact: true }).click();
    await waitFor(async () => (await options.locator('#host-install-actions .other-formats a', { hasText: 'SHA256SUMS' }).getAttribute('href')) === `${mirror.origin}/mirror/v${VERSION}/SHA256SUMS`, { what: 'mirror used' });
    await options.getByRole('button', { name: 'Install the host' }).click();
    const file = path.join(dir, 'downloads', DEB);
    await waitFor(() => fs.existsSync(file) && fs.statSync(file).size === fs.statSync(deb).size, { what: 'downloaded package', timeoutMs: 15_000 });
    assert.ok(fs.readFileSync(file).equals(fs.readFileSync(deb)));
    await waitFor(async () => /Waiting for gnosis-host to answer/.test(await options.locator('#install-state').textContent()), { what: 'install steps' });
    // What installing the package does, done here: register the host.
    const configPath = path.join(env.dir, 'config.json');
    fs.writeFileSync(configPath, JSON.stringify(hostConfig({ fakemunim: await fakeMunim(), log: env.callLog })));
    registerHost(env.userDataDir, { hostPath: hostBinary(), configPath, dir: env.dir });
    await waitFor(async () => /^Connected/.test(await options.locator('#host-state').textContent()), { what: 'connected after install', timeoutMs: 15_000 });
    assert.equal(await options.locator('#install-state').textContent(), 'gnosis-host answers. Installed.');
    assert.deepEqual(mirror.requests.filter((r) => r.endsWith('.deb')), [`/mirror/v${VERSION}/${DEB}`]);
  });
});
