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
// the HTML entry points load only their own context and core, that the
// content scripts are bundles of their entry modules, up to date
// (tools/content_bundle.mjs), and that no script is web-accessible, that every path
// the code names exists, and that message types and error codes are spelled
// through shared/core/messages.js and shared/core/codes.js. Every script is
// an ES module.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as MESSAGES from '../shared/core/messages.js';
import { CODES, TRANSPORT_CODES } from '../shared/core/codes.js';
import { PAGE_ENTRY, PAGE_LOADER } from '../bridge/core/page_scripts.js';
import { SCRIPT_FILES } from '../agent/core/page_assistant_settings.js';
import { BUNDLES, bundleText } from '../../tools/content_bundle.mjs';

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
/** The content scripts, generated from their entry modules: not sources, so the source rules skip them. */
const GENERATED = new Set(BUNDLES.map((b) => b.file));
const modules = files.filter((f) => f.endsWith('.js') && !GENERATED.has(f));

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

/** The content scripts the worker injects or registers: loaders, each importing one module. */
const LOADERS = [PAGE_LOADER, ...SCRIPT_FILES];
/** The entry module of each content script. */
const ENTRIES = BUNDLES.map((b) => b.entry);

const parsed = new Map(modules.map((f) => {
  const source = fs.readFileSync(path.join(ext, f), 'utf8');
  return [f, { source, ast: espree.parse(source, { ecmaVersion: 'latest', sourceType: 'module', tokens: true, range: true }) }];
}));

/** import(chrome.runtime.getURL('<path>')): a content script loading a module of the extension. */
function extensionUrlImport(node) {
  const a = node.source;
  const callee = a?.type === 'CallExpression' ? a.callee : null;
  const named = callee?.type === 'MemberExpression' && callee.property.name === 'getURL' && callee.object.type === 'MemberExpression'
    && callee.object.property.name === 'runtime' && callee.object.object.name === 'chrome';
  return named && a.arguments.length === 1 && typeof a.arguments[0].value === 'string' ? `/${a.arguments[0].value}` : null;
}

/** The specifiers a module imports: import and export ... from, and import() ('/<path>' for an extension URL). */
function importsOf(ast) {
  const specs = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if (node.type === 'ImportExpression' && extensionUrlImport(node)) specs.push(extensionUrlImport(node));
    else if ((node.type === 'ImportDeclaration' || node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration' || node.type === 'ImportExpression') && node.source) {
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

/** The extension path an import specifier of module f names. */
const targetOf = (f, spec) => (spec.startsWith('/') ? spec.slice(1) : path.posix.normalize(path.posix.join(path.posix.dirname(f), spec)));

/** Every module entry imports, itself included (relative imports, transitively). */
function graphOf(entry) {
  const seen = new Set();
  const walkFrom = (f) => {
    if (seen.has(f) || !parsed.has(f)) return;
    seen.add(f);
    for (const spec of importsOf(parsed.get(f).ast)) if (spec.startsWith('.')) walkFrom(targetOf(f, spec));
  };
  walkFrom(entry);
  return seen;
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

/** Each browser's manifest names its own background entry, and both are background.js by that convention. */
const SAME_NAME_ALLOWED = new Set(['background.js']);

test('no two modules of the extension share a base name', () => {
  const byName = new Map();
  for (const f of modules) byName.set(path.posix.basename(f), [...(byName.get(path.posix.basename(f)) || []), f]);
  const twice = [...byName].filter(([name, list]) => list.length > 1 && !SAME_NAME_ALLOWED.has(name)).map(([, list]) => list.join(' and '));
  assert.deepEqual(twice, [], 'rename one of each pair: a stack trace, a search or an import names a module by its base name');
});

test('imports point only towards core/ and shared/: never into a sibling context, across features, or out of core', () => {
  const bad = [];
  let count = 0;
  for (const [f, { ast }] of parsed) {
    for (const spec of importsOf(ast)) {
      count++;
      if (!spec.startsWith('.') && !spec.startsWith('/')) { bad.push(`${f} imports ${spec}: only relative imports of extension modules`); continue; }
      if (spec.startsWith('/')) { bad.push(`${f} imports ${spec} by extension URL`); continue; }
      const target = targetOf(f, spec);
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

test('the content scripts are the bundles of their entry modules, as their sources make them now', () => {
  assert.deepEqual(LOADERS.sort(), [...GENERATED].sort(), 'the worker injects exactly the bundles');
  assert.ok(ENTRIES.includes(PAGE_ENTRY));
  for (const b of BUNDLES) {
    assert.equal(fs.readFileSync(path.join(ext, b.file), 'utf8'), bundleText(b), `${b.file} is stale: run node tools/content_bundle.mjs`);
  }
});

test('a bundle runs its modules once per page however often it is injected, and its value is true', () => {
  for (const b of BUNDLES) {
    const code = fs.readFileSync(path.join(ext, b.file), 'utf8');
    const page = {};
    // The first injection runs the modules: here, without a page, they stop at the first browser global they use.
    assert.throws(() => vm.runInNewContext(code, page), /^ReferenceError: (document|window|chrome) is not defined$/, b.file);
    assert.equal(page[b.once], true, `${b.file} marks the page`);
    // Any later one runs nothing and says true (executeScript's result).
    assert.equal(vm.runInNewContext(code, page), true, b.file);
  }
});

test('no script is web-accessible: only the Page Assistant\'s frame page is', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.web_accessible_resources.flatMap((r) => r.resources), ['agent/frame/page_assistant_frame.html']);
});

test('every file of a content script folder belongs to a content script', () => {
  const loaded = new Set(ENTRIES.flatMap((e) => [...graphOf(e)]));
  assert.deepEqual(modules.filter((f) => /^[^/]+\/page\//.test(f) && !loaded.has(f)), []);
  assert.ok(loaded.size > 12, `the content scripts load only ${loaded.size} modules; the walk is wrong`);
});

test('the HTML pages load ES modules only', () => {
  const bad = [];
  for (const html of files.filter((f) => f.endsWith('.html'))) {
    for (const [tag] of fs.readFileSync(path.join(ext, html), 'utf8').matchAll(/<script[^>]*>/g)) if (!/type="module"/.test(tag)) bad.push(`${html}: ${tag}`);
  }
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

test('modules name message types and port names through shared/core/messages.js', () => {
  const distinctive = [...messageValues].filter((v) => /[.-]/.test(v) || v.startsWith('page'));
  const bad = [];
  for (const [f, { ast }] of parsed) {
    if (f === 'shared/core/messages.js') continue;
    for (const s of stringsOf(ast)) if (distinctive.includes(s)) bad.push(`${f}: '${s}'`);
  }
  assert.deepEqual(bad, []);
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
