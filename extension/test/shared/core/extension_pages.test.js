// The lists of the extension's own pages and its web-accessible pages match
// the HTML files and the manifest: a page added, moved or made
// web-accessible without updating core/extension_pages.js fails here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXTENSION_PAGES, FRAME_PAGES, isExtensionPage, isFramePage } from '../../../shared/core/extension_pages.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ORIGIN = 'chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd';

function htmlFiles(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'test') htmlFiles(p, out); } else if (e.name.endsWith('.html')) out.push('/' + path.relative(ROOT, p).split(path.sep).join('/'));
  }
  return out;
}

test('every HTML file is listed once: an extension page or a web-accessible page', () => {
  assert.deepEqual(htmlFiles(ROOT).sort(), [...EXTENSION_PAGES, ...FRAME_PAGES].sort());
});

test('the web-accessible pages are exactly the manifest\'s web_accessible_resources', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.json'), 'utf8'));
  const war = manifest.web_accessible_resources.flatMap((r) => r.resources).filter((r) => r.endsWith('.html')).map((r) => '/' + r);
  assert.deepEqual(war.sort(), [...FRAME_PAGES].sort());
  for (const page of [manifest.options_page, manifest.side_panel.default_path, manifest.sidebar_action.default_panel]) {
    assert.ok(EXTENSION_PAGES.includes('/' + page), page);
  }
});

test('a URL is our page only under our exact origin, by its path, whatever its query or hash', () => {
  assert.equal(isExtensionPage(`${ORIGIN}/bridge/approval/approve.html?token=1#x`, ORIGIN), true);
  assert.equal(isExtensionPage(`${ORIGIN}/agent/frame/page_assistant_frame.html`, ORIGIN), false);
  assert.equal(isFramePage(`${ORIGIN}/agent/frame/page_assistant_frame.html?bridge/options/options.html`, ORIGIN), true);
  assert.equal(isExtensionPage(`${ORIGIN}.evil.com/bridge/options/options.html`, ORIGIN), false);
  assert.equal(isExtensionPage(`${ORIGIN}/bridge/options/../options/options.html`, ORIGIN), true, 'URL parsing resolves dot segments');
  assert.equal(isExtensionPage(`${ORIGIN}/bridge/options/options.htm`, ORIGIN), false);
  assert.equal(isExtensionPage('https://evil.example/bridge/options/options.html', ORIGIN), false);
  assert.equal(isExtensionPage(undefined, ORIGIN), false);
});
