// How a page takes images, found without a preset, measured: on every chat
// replica (fixtures/sites/, each taking images the way its site is known to)
// and on the real chat UI with and without its attachments, the page reports
// what "Attach images by" would use when left automatic and no preset is
// consulted (bridge/page/attach_detect.js: a file input that takes images
// near the input, a drop zone around it, an attach button, else none). Each
// is checked against the way the site takes images: the same means, and for
// a file input or a drop zone the same element. Then the page is armed so,
// without its preset, and a screenshot call's image must go with the message
// (a guessed paste the page does not take is dropped onto the input
// instead). Prints the column docs/autodetect.md's table carries; fails when
// fewer are right or attached than the floors below, or when a page that
// takes images is said to take none, or one that takes none gets one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launch, REPO, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armedIn } from './lib/bridge.js';
import { patternProvider } from './lib/pattern.js';
import { PRESETS } from '../../extension/bridge/core/presets.js';
import { PAGE_LOADER } from '../../extension/bridge/core/page_scripts.js';
import { describeMeans } from '../../extension/bridge/core/attach_means.js';

const FLOOR = { found: 13, attached: 16 };
const realDist = path.join(REPO, 'tests', 'e2e', 'fixtures', 'realchat', 'dist');
const REAL = { source: '.aui-assistant-message-content', destination: '.aui-composer-input', sendButton: 'button.aui-composer-send', streaming: '.aui-composer-cancel' };
const SITES = [
  { id: 'assistant-ui', name: 'assistant-ui (real, built from npm)', path: '/index.html?attach=1', real: true, truth: { by: 'paste', target: '' }, ...REAL },
  { id: 'assistant-ui-plain', name: 'assistant-ui without attachments (real)', path: '/index.html', real: true, truth: { by: 'none', target: '' }, ...REAL },
  ...PRESETS.map((p) => ({
    id: p.id, name: `${p.name} (replica)`, path: `/sites/${p.id}.html`, truth: p.attach, source: p.source, destination: p.destination, sendButton: p.sendButton, streaming: p.streaming,
  })),
];

let env;
const servers = {};
const rows = [];

before(async () => {
  if (!fs.existsSync(path.join(realDist, 'index.html'))) throw new Error(`${realDist} is not built: run tests/setup.sh`);
  for (const s of SITES) servers[s.id] = await serve(s.real ? { dir: realDist } : {});
  const dir = tempDir('gnosis-images-');
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'], policy: { origins: Object.fromEntries(Object.values(servers).map((v) => [v.origin, ['desk.screenshot']])) },
    providers: [patternProvider({ state: path.join(dir, 'screen.json'), log: path.join(dir, 'clicks.jsonl') })],
  });
});

after(async () => {
  await env?.close();
  for (const s of Object.values(servers)) await s?.close();
});

describe('how each page takes images, found without its preset', { concurrency: 4 }, () => {
  for (const site of SITES) {
    test(site.name, async () => {
      const chat = await env.newPage(servers[site.id].url(site.path));
      await chat.locator(site.destination).first().waitFor();
      const found = await env.evalInWorker(async ([u, files, selectors]) => {
        const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
        await chrome.scripting.executeScript({ target: { tabId: tab.id }, files });
        const r = await chrome.tabs.sendMessage(tab.id, { type: 'bridge.check', selectors, attach: { attachBy: '', attachTarget: '', preset: '' } });
        return r.attach;
      }, [chat.url(), [PAGE_LOADER], { destination: site.destination, sendButton: site.sendButton }]);
      // The same element: a file input or a drop zone named alike (a drop onto the input reaches the zone around it).
      const same = await chat.evaluate(([f, t, input]) => {
        const one = (css) => (css ? document.querySelector(css) : null);
        if (f.by !== t.by) return false;
        if (f.by === 'file') return !!one(f.target) && one(f.target) === one(t.target);
        if (f.by === 'drop') return (one(f.target) || one(input)) === (one(t.target) || one(input)) || (!t.target && one(f.target)?.contains(one(input)));
        return true;
      }, [found, site.truth, site.destination]);
      // Armed so, without its preset (its own selectors, images automatic), a screenshot's image goes with the result or not.
      const origin = servers[site.id].origin;
      await env.evalInWorker(([key, v]) => chrome.storage.local.set({ [key]: v }), [`site:${origin}`, {
        source: site.source, destination: site.destination, sendButton: site.sendButton, streaming: site.streaming, autoSend: true, autoSendChosen: true,
        preset: '', debounceMs: 300, maxConsecutive: 25, maxChars: 20000, attachBy: '', attachTarget: '', imageMaxSide: 1568, maxImages: 4,
      }]);
      const options = await env.openOptions(`?origin=${encodeURIComponent(origin)}`);
      await options.locator('body[data-ready]').waitFor();
      await options.getByRole('button', { name: 'Start', exact: true }).click();
      await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: `${site.id} armed` });
      await armedIn(env, chat);
      const call = JSON.stringify({ capability: 'desk.screenshot', arguments: {} });
      const sent = site.real ? 'window.realchat.sent()' : 'window.chat.sent';
      if (site.real) {
        await chat.evaluate((c) => window.realchat.queue(c), call);
        await chat.locator(site.destination).click();
        await chat.keyboard.type('look');
        await chat.keyboard.press('Enter');
      } else {
        await chat.evaluate((c) => window.chat.stream(c), call);
      }
      const text = await waitFor(async () => (await chat.evaluate(sent)).find((m) => m.includes('desk.screenshot')), { what: `${site.id}: the result sent`, timeoutMs: 40_000 });
      const attached = /is attached to this message/.test(text);
      rows.push({ site: site.name, found, truth: site.truth, right: same, attached, why: attached ? '' : text.split('\n').pop() });
      await options.close();
      await chat.close();
      if (site.truth.by !== 'none') assert.notEqual(found.by, 'none', `${site.name} takes images, but was said to take none: ${found.why}`);
      else assert.equal(attached, false, `${site.name} takes no images, but one was said to be attached`);
    });
  }
});

test('the column', () => {
  rows.sort((a, b) => SITES.findIndex((s) => s.name === a.site) - SITES.findIndex((s) => s.name === b.site));
  const lines = ['| site | Attach images by: found | the site takes | right | a screenshot attached |', '| --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.site} | ${describeMeans(r.found)} | ${describeMeans(r.truth)} | ${r.right ? 'yes' : 'no'} | ${r.attached ? 'yes' : r.truth.by === 'none' ? 'no (right)' : `no: ${r.why}`} |`);
  const right = rows.filter((r) => r.right).length;
  const attached = rows.filter((r) => r.attached === (r.truth.by !== 'none')).length;
  lines.push(`| **all ${rows.length}** | | | **${right}/${rows.length}** | **${attached}/${rows.length}** |`);
  console.log(lines.join('\n'));
  assert.equal(rows.length, SITES.length);
  assert.ok(right >= FLOOR.found, `${right} found right, fewer than ${FLOOR.found}`);
  assert.ok(attached >= FLOOR.attached, `${attached} attached right, fewer than ${FLOOR.attached}`);
});
