// Lint for the extension and the end-to-end tests: @eslint/js's recommended
// rules, with the globals of where each file runs.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', 'extension/hostbin/', 'dist/', 'bin/'] },
  js.configs.recommended,
  {
    // Extension code runs in the service worker, extension pages and content scripts.
    files: ['extension/**/*.js'],
    ignores: ['extension/test/**'],
    languageOptions: {
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions },
    },
  },
  {
    // Unit tests run under node --test.
    files: ['extension/test/**/*.js', 'eslint.config.js'],
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
