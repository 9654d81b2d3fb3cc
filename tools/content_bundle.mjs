// The content scripts as single classic scripts, so that no module of the
// extension needs to be web-accessible (issue 38 item 9: a page could import
// every web-accessible module, read its code and tell Gnosis is installed).
// A content script may import() only web-accessible files, and Chromium
// still refuses a content script's import of a resource behind its dynamic
// URL, so each content script's entry module and the modules it imports are
// joined into one file the worker injects with chrome.scripting (files:),
// which needs no web access at all.
//
// Each module keeps its own scope: it becomes a function that runs its code
// and returns its exports, called in dependency order; its imports become
// constants read from the modules before it. Only the forms the content
// scripts use are taken: `import * as x from`, `import { a, b as c } from`,
// `export const|let|function|class`, and `export { a, b as c }`; anything
// else is an error naming the file. The file runs its modules once per page
// however often it is injected, and its value is true (executeScript's
// result).
//
//   node tools/content_bundle.mjs          writes every bundle
//   node tools/content_bundle.mjs --check  fails if one is not what its sources make
//
// extension/test/layout.test.js fails while a bundle is stale.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PAGE_ENTRY, PAGE_LOADER } from '../extension/bridge/core/page_scripts.js';
import { SCRIPT_ENTRY, SCRIPT_FILES } from '../extension/agent/core/page_assistant_settings.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const EXT = path.join(REPO, 'extension');
// espree is eslint's parser: resolve it where eslint finds it.
const espree = createRequire(createRequire(import.meta.url).resolve('eslint'))('espree');

/** The bundles, as the worker names them: the file it injects, the entry module that runs, the global that marks it ran. */
export const BUNDLES = Object.freeze([
  { file: PAGE_LOADER, entry: PAGE_ENTRY, once: '__gnosisBridgeContent' },
  { file: SCRIPT_FILES[0], entry: SCRIPT_ENTRY, once: '__gnosisPageAssistant' },
]);

/** A module's source rewritten to run in its own function: {body, exports, deps}. */
function rewrite(file, source) {
  const ast = espree.parse(source, { ecmaVersion: 'latest', sourceType: 'module', range: true });
  const edits = []; // [start, end, text]
  const exports = []; // [exported, local]
  const deps = [];
  const target = (spec) => {
    if (!spec.startsWith('.')) throw new Error(`${file}: imports ${spec}, not a relative module`);
    return path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  };
  for (const node of ast.body) {
    const [start, end] = node.range;
    if (node.type === 'ImportDeclaration') {
      const dep = target(node.source.value);
      deps.push(dep);
      const ns = node.specifiers.find((s) => s.type === 'ImportNamespaceSpecifier');
      const named = node.specifiers.filter((s) => s.type === 'ImportSpecifier');
      if (node.specifiers.some((s) => s.type === 'ImportDefaultSpecifier')) throw new Error(`${file}: a default import is not taken`);
      const lines = [];
      if (ns) lines.push(`const ${ns.local.name} = ${moduleVar(dep)};`);
      if (named.length) lines.push(`const { ${named.map((s) => (s.imported.name === s.local.name ? s.local.name : `${s.imported.name}: ${s.local.name}`)).join(', ')} } = ${moduleVar(dep)};`);
      edits.push([start, end, lines.join(' ')]);
    } else if (node.type === 'ExportNamedDeclaration') {
      if (node.source) throw new Error(`${file}: export … from is not taken`);
      if (node.declaration) {
        const d = node.declaration;
        const names = d.type === 'VariableDeclaration' ? d.declarations.map((x) => x.id.name) : [d.id.name];
        for (const n of names) exports.push([n, n]);
        edits.push([start, d.range[0], '']);
      } else {
        for (const s of node.specifiers) exports.push([s.exported.name, s.local.name]);
        edits.push([start, end, '']);
      }
    } else if (node.type === 'ExportDefaultDeclaration' || node.type === 'ExportAllDeclaration') {
      throw new Error(`${file}: ${node.type} is not taken`);
    }
  }
  let body = source;
  for (const [s, e, text] of edits.sort((a, b) => b[0] - a[0])) body = body.slice(0, s) + text + body.slice(e);
  return { body, exports, deps };
}

/** The variable a module's exports are kept in. */
function moduleVar(file) {
  return `__module_${file.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** The text of one bundle: its modules in dependency order, each in its own scope. */
export function bundleText({ file, entry, once }, read = (f) => fs.readFileSync(path.join(EXT, f), 'utf8')) {
  const order = [];
  const seen = new Set();
  const parts = new Map();
  const visit = (f, chain) => {
    if (chain.includes(f)) throw new Error(`import cycle: ${[...chain, f].join(' → ')}`);
    if (seen.has(f)) return;
    seen.add(f);
    const r = rewrite(f, read(f));
    parts.set(f, r);
    for (const d of r.deps) visit(d, [...chain, f]);
    order.push(f);
  };
  visit(entry, []);
  const modules = order.map((f) => {
    const { body, exports } = parts.get(f);
    // The entry runs; nothing imports it.
    if (f === entry) return `// ${f}\n(() => {\n${body.trimEnd()}\n})();\n`;
    const returned = exports.map(([name, local]) => (name === local ? name : `${name}: ${local}`)).join(', ');
    return `// ${f}\nconst ${moduleVar(f)} = (() => {\n${body.trimEnd()}\nreturn Object.freeze({ ${returned} });\n})();\n`;
  });
  return `// ${file}: generated by tools/content_bundle.mjs from ${entry} and the modules it imports
// (${order.length} files). Do not edit: change those, then run node tools/content_bundle.mjs.
// A classic script the worker injects (chrome.scripting, files:), so no module is web-accessible;
// it runs its modules once per page however often it is injected, and its value is true.
if (!globalThis.${once}) {
globalThis.${once} = true;
${modules.join('\n')}
}
true;
`;
}

/** Writes every bundle (or, with check, returns the stale ones). */
export function writeBundles({ check = false } = {}) {
  const stale = [];
  for (const b of BUNDLES) {
    const want = bundleText(b);
    const at = path.join(EXT, b.file);
    const have = fs.existsSync(at) ? fs.readFileSync(at, 'utf8') : null;
    if (have === want) continue;
    stale.push(b.file);
    if (!check) fs.writeFileSync(at, want);
  }
  return stale;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const stale = writeBundles({ check });
  if (check && stale.length) {
    console.error(`stale: ${stale.join(', ')}: run node tools/content_bundle.mjs`);
    process.exit(1);
  }
  console.log(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}` : 'every bundle is up to date');
}
