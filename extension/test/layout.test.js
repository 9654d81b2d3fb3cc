// The extension's folders say where each file runs (README "Layout"):
//
//   <feature>/worker|panel|page|frame|options|approval|setup/   one runtime context each
//   <feature>/core/     pure modules: no chrome.*, no DOM (eslint enforces the globals)
//   shared/core/        pure modules every feature uses
//   shared/             glue several contexts use
//   firefox/            Firefox's own background entry (a background, like
//                       background.js) and its sidebar page (a context)
//
// These tests read every module and check that imports point only towards
// core/ and shared/ (never into a sibling context nor across features), that
// the HTML entry points load only their own context and core, that every path
// the code names exists, and that message types and error codes are spelled
// through shared/core/messages.js and shared/core/codes.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as MESSAGES from '../shared/core/messages.js';
import { CODES, TRANSPORT_CODES } from '../shared/core/codes.js';
import { PAGE_SCRIPTS } from '../bridge/core/page_scripts.js';
import { SCRIPT_FILES } from '../agent/core/page_assistant_settings.js';

const ext = fileURLToPath(new URL('../', import.meta.url));
// espree is eslint's parser: resolve it where eslint finds it.
const espree = createRequire(createRequire(import.meta.url).resolve('eslint'))('espree');

/** The contexts of each feature, besides its core/. */
const CONTEXTS = { agent: ['worker', 'panel', 'page', 'frame'], bridge: ['worker', 'options', 'approval', 'setup', 'page'] };

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return ['test', 'hostbin', 'node_modules'].includes(e.name) && dir === ext.replace(/\/$/, '') ? [] : walk(p);
    return [p];
  });
}
const files = walk(ext.replace(/\/$/, '')).map((p) => path.relative(ext, p).split(path.sep).join('/'));
const modules = files.filter((f) => f.endsWith('.js'));

/** Where a file runs: 'background', 'shared/core', 'shared', '<feature>/core' or '<feature>/<context>'; null when outside the layout. */
function placeOf(file) {
  if (file === 'background.js' || file === 'firefox/background.js') return 'background';
  if (file.startsWith('firefox/')) return 'firefox/sidebar';
  const [top, second] = file.split('/');
  if (top === 'shared') return second === 'core' && file.split('/').length > 2 ? 'shared/core' : 'shared';
  if (CONTEXTS[top] && (second === 'core' || CONTEXTS[top].includes(second))) return `${top}/${second}`;
  return null;
}

/** May a module at place `from` import one at place `to`? */
function allowed(from, to) {
  if (to === 'shared/core') return true;
  if (from === 'shared/core') return false;
  const [fromFeature, fromContext] = from.split('/');
  const [toFeature, toContext] = to.split('/');
  if (from === 'background') return to === 'shared' || toContext === 'worker';
  if (from === 'shared') return to === 'shared' || toContext === 'core';
  if (fromContext === 'core') return to === from;
  return to === from || to === 'shared' || (toFeature === fromFeature && toContext === 'core');
}

/** Classic scripts: the content scripts (with the core files injected beside them) and the scripts HTML loads without type=module. They cannot import. */
const classic = new Set([...modules.filter((f) => /^[^/]+\/page\//.test(f)), ...PAGE_SCRIPTS, ...SCRIPT_FILES]);
for (const html of files.filter((f) => f.endsWith('.html'))) {
  for (const [, attrs, src] of fs.readFileSync(path.join(ext, html), 'utf8').matchAll(/<script([^>]*)\ssrc="([^"]+)"/g)) {
    if (!/type="module"/.test(attrs)) classic.add(path.posix.join(path.posix.dirname(html), src));
  }
}

const parsed = new Map(modules.map((f) => {
  const source = fs.readFileSync(path.join(ext, f), 'utf8');
  const opts = { ecmaVersion: 'latest', sourceType: classic.has(f) ? 'script' : 'module', tokens: true, range: true };
  return [f, { source, ast: espree.parse(source, opts) }];
}));

/** The specifiers a module imports: import and export ... from, and import(). */
function importsOf(ast) {
  const specs = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if ((node.type === 'ImportDeclaration' || node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration' || node.type === 'ImportExpression') && node.source) {
      specs.push(node.source.value ?? '(computed)');
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object' && v.type) visit(v);
    }
  };
  visit(ast);
  return specs;
}

/** The string values of a module: string literals and the text of template parts. */
function stringsOf(ast) {
  return ast.tokens.filter((t) => t.type === 'String' || t.type === 'Template')
    .map((t) => (t.type === 'String' ? t.value.slice(1, -1) : t.value.replace(/^[`}]|(\$\{|`)$/g, '')));
}

test('every module of the extension lives in a runtime context folder, core/ or shared/', () => {
  const outside = modules.filter((f) => placeOf(f) === null);
  assert.deepEqual(outside, [], 'move these under <feature>/{core,worker,panel,page,frame,options,approval}/ or shared/');
  assert.ok(modules.length > 60, `found only ${modules.length} modules; the walk is wrong`);
});

test('imports point only towards core/ and shared/: never into a sibling context, across features, or out of core', () => {
  const bad = [];
  let count = 0;
  for (const [f, { ast }] of parsed) {
    for (const spec of importsOf(ast)) {
      count++;
      if (!spec.startsWith('.')) { bad.push(`${f} imports ${spec}: only relative imports of extension modules`); continue; }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(f), spec));
      if (!modules.includes(target)) { bad.push(`${f} imports ${spec}, which does not exist`); continue; }
      if (!allowed(placeOf(f), placeOf(target))) bad.push(`${f} (${placeOf(f)}) imports ${target} (${placeOf(target)})`);
    }
  }
  assert.deepEqual(bad, []);
  assert.ok(count > 100, `found only ${count} imports; the parser is wrong`);
});

test('the import rule refuses a sibling context, another feature and core importing glue', () => {
  assert.equal(allowed('agent/panel', 'agent/worker'), false);
  assert.equal(allowed('bridge/page', 'bridge/options'), false);
  assert.equal(allowed('bridge/setup', 'bridge/options'), false);
  assert.equal(allowed('bridge/options', 'bridge/setup'), false);
  assert.equal(allowed('bridge/setup', 'bridge/core'), true);
  assert.equal(allowed('agent/panel', 'bridge/core'), false);
  assert.equal(allowed('agent/core', 'agent/panel'), false);
  assert.equal(allowed('agent/core', 'shared'), false);
  assert.equal(allowed('shared/core', 'shared'), false);
  assert.equal(allowed('background', 'agent/panel'), false);
  assert.equal(allowed('agent/panel', 'agent/core'), true);
  assert.equal(allowed('bridge/worker', 'shared'), true);
  assert.equal(allowed('firefox/sidebar', 'shared'), true);
  assert.equal(allowed('firefox/sidebar', 'bridge/options'), false);
});

test('every file of a content script folder is injected', () => {
  const injected = new Set([...PAGE_SCRIPTS, ...SCRIPT_FILES]);
  assert.deepEqual(modules.filter((f) => /^[^/]+\/page\//.test(f) && !injected.has(f)), []);
  assert.equal(PAGE_SCRIPTS.at(-1), 'bridge/page/content.js', 'the entry, which wires the others, goes last');
});

test('classic scripts import nothing', () => {
  const bad = [...classic].filter((f) => importsOf(parsed.get(f).ast).length > 0);
  assert.deepEqual(bad, []);
});

test('HTML entry points load scripts of their own context, core/ or shared/', () => {
  const bad = [];
  for (const html of files.filter((f) => f.endsWith('.html'))) {
    for (const [, src] of fs.readFileSync(path.join(ext, html), 'utf8').matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(html), src));
      if (!files.includes(target)) bad.push(`${html} loads ${src}, which does not exist`);
      else if (!allowed(placeOf(html), placeOf(target))) bad.push(`${html} loads ${target}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('every relative href and src of the HTML pages names a file that exists', () => {
  const bad = [];
  let count = 0;
  for (const html of files.filter((f) => f.endsWith('.html'))) {
    for (const [, ref] of fs.readFileSync(path.join(ext, html), 'utf8').matchAll(/\s(?:href|src)="([^"#?:]+)[^"]*"/g)) {
      count++;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(html), ref));
      if (!files.includes(target)) bad.push(`${html} names ${ref}, which does not exist`);
    }
  }
  assert.deepEqual(bad, []);
  assert.ok(count >= 10, `found only ${count} references; the scan is wrong`);
});

test('every extension path the code and the manifest name exists', () => {
  const named = [];
  for (const [f, { ast }] of parsed) {
    for (const s of stringsOf(ast)) {
      for (const [p] of s.matchAll(/\b(?:agent|bridge|shared)\/[\w/]+\.(?:js|html|css|txt)\b/g)) named.push([f, p]);
    }
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'manifest.json'), 'utf8'));
  const fromManifest = [manifest.side_panel.default_path, manifest.sidebar_action.default_panel, manifest.options_page,
    manifest.background.service_worker, ...manifest.background.scripts, ...manifest.web_accessible_resources.flatMap((r) => r.resources)];
  for (const p of fromManifest) named.push(['manifest.json', p]);
  const missing = named.filter(([, p]) => !files.includes(p)).map(([f, p]) => `${f} names ${p}`);
  assert.deepEqual(missing, []);
  assert.ok(named.length >= 10, `found only ${named.length} paths; the scan is wrong`);
});

const messageValues = new Set(Object.values(MESSAGES).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v))));
const NAMESPACED = /^(?:bridge|agent|pageAssistant|gnosis)\.[A-Za-z]+$/;

test('modules name message types and port names through shared/core/messages.js', () => {
  const distinctive = [...messageValues].filter((v) => /[.-]/.test(v) || v.startsWith('page'));
  const bad = [];
  for (const [f, { ast }] of parsed) {
    if (f === 'shared/core/messages.js' || classic.has(f)) continue;
    for (const s of stringsOf(ast)) if (distinctive.includes(s)) bad.push(`${f}: '${s}'`);
  }
  assert.deepEqual(bad, []);
});

test('classic scripts, which cannot import, spell only message types of shared/core/messages.js', () => {
  const bad = [];
  let seen = 0;
  for (const f of classic) {
    for (const s of stringsOf(parsed.get(f).ast)) {
      if (!NAMESPACED.test(s)) continue;
      seen++;
      if (!messageValues.has(s)) bad.push(`${f}: '${s}'`);
    }
  }
  assert.deepEqual(bad, []);
  assert.ok(seen > 5, `found only ${seen} message types in the classic scripts; the scan is wrong`);
});

test('modules name error codes through shared/core/codes.js', () => {
  const codes = new Set([...Object.values(CODES), ...Object.values(TRANSPORT_CODES)]);
  const bad = [];
  for (const [f, { ast }] of parsed) {
    if (f === 'shared/core/codes.js') continue;
    for (const s of stringsOf(ast)) if (codes.has(s)) bad.push(`${f}: '${s}'`);
  }
  assert.deepEqual(bad, []);
});
