// Lint for the extension and the end-to-end tests: @eslint/js's recommended
// rules, with the globals of where each file runs. The extension's folders say
// where its code runs (README "Layout"), and each gets that context's globals
// only, so a `document` in worker code or a `chrome.*` call in a pure module
// fails here (extension/test/lint_contexts.test.js proves it).
import js from '@eslint/js';
import globals from 'globals';

// The features' runtime contexts, by folder.
const WORKER = ['extension/background.js', 'extension/firefox/background.js', 'extension/*/worker/**/*.js'];
const EXTENSION_PAGES = ['extension/agent/panel/**/*.js', 'extension/agent/frame/**/*.js',
  'extension/bridge/options/**/*.js', 'extension/bridge/approval/**/*.js', 'extension/bridge/setup/**/*.js',
  'extension/firefox/sidebar.js'];
const CONTENT_SCRIPTS = ['extension/*/page/**/*.js'];
const CORE = ['extension/*/core/**/*.js', 'extension/shared/core/**/*.js'];
const SHARED_GLUE = ['extension/shared/*.js'];

// Pure modules get what node and the browser both offer (URL, TextEncoder,
// fetch, setTimeout, structuredClone, …) but not the browser's storage or navigator.
const BROWSER_ONLY_IN_SHARED = ['localStorage', 'sessionStorage', 'Storage', 'navigator', 'Navigator'];
const pure = Object.fromEntries(Object.entries(globals['shared-node-browser'])
  .filter(([name]) => !BROWSER_ONLY_IN_SHARED.includes(name)));

// chrome.* APIs a content script has (the rest exist only in extension contexts).
const CONTENT_SCRIPT_APIS = 'runtime|storage|i18n|dom';

export default [
  { ignores: ['node_modules/', 'extension/hostbin/', 'dist/', 'bin/', 'tests/e2e/fixtures/*/dist/'] },
  js.configs.recommended,
  {
    // The service worker (Chromium) or event page (Firefox): chrome.*, no DOM.
    files: WORKER,
    languageOptions: { sourceType: 'module', globals: { ...globals.serviceworker, ...globals.webextensions } },
  },
  {
    // Extension pages (the Side Panel, the Page Assistant's frame, the options page, the approval window, the setup page): DOM and chrome.*.
    files: EXTENSION_PAGES,
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.webextensions } },
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "MemberExpression[object.name='chrome'][property.name='debugger']",
        message: 'chrome.debugger belongs to the service worker (agent/worker/).',
      }],
    },
  },
  {
    // Content scripts, ES modules a loader imports into web pages: the page's DOM and chrome.runtime/storage/i18n only.
    files: CONTENT_SCRIPTS,
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.webextensions } },
    rules: {
      'no-restricted-syntax': ['error', {
        selector: `MemberExpression[object.name='chrome'][property.name!=/^(${CONTENT_SCRIPT_APIS})$/]`,
        message: `A content script has only chrome.{${CONTENT_SCRIPT_APIS.split('|').join(',')}}; ask the worker for the rest.`,
      }],
    },
  },
  {
    // The bundles tools/content_bundle.mjs generates from the content scripts' modules keep the rules above
    // (a chrome.* call a content script lacks fails here too), but not those on style esbuild owns: it keeps
    // a constant no code reads and drops the comment that explained an empty catch.
    files: ['extension/*/page/*.bundle.js'],
    rules: { 'no-unused-vars': 'off', 'no-empty': 'off' },
  },
  {
    // Pure modules: standard JavaScript and what node shares with the browser; no chrome.*, no DOM.
    files: CORE,
    languageOptions: { sourceType: 'module', globals: pure },
  },
  {
    // shared/'s glue runs in several of the contexts above.
    files: SHARED_GLUE,
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions } },
  },
  {
    // Unit tests run under node --test; the development tools under node.
    files: ['extension/test/**/*.js', 'eslint.config.js', 'tools/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  {
    // End-to-end tests run under node and hand callbacks to the browser (page.evaluate, the worker).
    files: ['tests/e2e/**/*.js', 'tests/e2e/**/*.mjs'],
    languageOptions: {
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser, ...globals.webextensions },
    },
  },
];
