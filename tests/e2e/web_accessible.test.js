// What a web page can load of the extension (issue 38 item 9). No script is
// web-accessible: each content script is one classic file the worker injects
// (chrome.scripting, files:), built from its modules by
// tools/content_bundle.mjs, so a page that imports or fetches any of the
// extension's scripts at its URL gets nothing: it can neither read their
// code nor learn from them that Gnosis is installed. Only the Page
// Assistant's frame page is web-accessible (a page sees it where the content
// script puts it). The bridge's content script still loads and runs a call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { EXTENSION_DIR, EXTENSION_ORIGIN, launch } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, waitForSent } from './lib/bridge.js';

const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_DIR, 'manifest.json'), 'utf8'));
const accessible = manifest.web_accessible_resources.flatMap((r) => r.resources);
/** Every script a content script runs or imported before: the content scripts' folders, core/ and shared/core/. */
const scripts = ['bridge/page', 'agent/page', 'bridge/core', 'agent/core', 'shared/core']
  .flatMap((dir) => fs.readdirSync(path.join(EXTENSION_DIR, dir)).filter((f) => f.endsWith('.js')).map((f) => `${dir}/${f}`));
const settings = { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300 };

let site;
let env;

before(async () => {
  site = await serve();
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

test('a page can import or fetch none of the extension\'s scripts; the bridge still loads on an armed site', async () => {
  assert.deepEqual(accessible, ['agent/frame/page_assistant_frame.html']);
  assert.ok(scripts.length >= 60 && scripts.includes('bridge/page/content.bundle.js'), `${scripts.length} scripts`);
  const chat = await env.newPage(site.url('/chat.html'));
  const tried = await chat.evaluate(async ({ base, files }) => {
    const out = {};
    for (const f of files) {
      const url = `${base}${f}`;
      const imported = await import(url).then(() => 'imported', () => 'refused');
      const fetched = await fetch(url).then((r) => `fetched ${r.status}`, () => 'refused');
      out[f] = `${imported}, ${fetched}`;
    }
    return out;
  }, { base: EXTENSION_ORIGIN, files: scripts });
  assert.deepEqual(Object.entries(tried).filter(([, how]) => how !== 'refused, refused'), [], 'scripts a page could load');
  // The frame page is (a page sees it where the content script puts it).
  assert.equal(await chat.evaluate((u) => fetch(u).then((r) => `fetched ${r.status}`, () => 'refused'), `${EXTENSION_ORIGIN}${accessible[0]}`), 'fetched 200');
  // The bridge's content script, injected as one file, reads the reply, runs the call and writes the result.
  await armFromOptions(env, settings);
  await chat.evaluate((c) => window.chat.stream(c), JSON.stringify({ capability: 'computer.echo', arguments: { text: 'still here' } }));
  const replies = await waitForSent(chat, 1, 30_000);
  assert.match(replies[0], /still here/);
});
