// eslint.config.js gives each of the extension's runtime contexts its own
// globals: these lint a snippet as if it were a file of each folder and check
// that what the context lacks fails and what it has passes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: repo });

/** The messages eslint gives code as if it were the file at path (relative to the repository). */
async function lint(path, code) {
  const [result] = await eslint.lintText(code, { filePath: `${repo}${path}` });
  return result.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

const cases = [
  // [context, file, code, what must be reported (a regex) or null for clean]
  ['worker: chrome.* is there', 'extension/agent/worker/x.js', 'chrome.debugger.attach({ tabId: 1 }, "1.3");\nself.addEventListener("x", () => {});\n', null],
  ['worker: no document', 'extension/agent/worker/x.js', 'export const t = document.title;\n', /'document' is not defined/],
  ['worker: no window', 'extension/bridge/worker/x.js', 'export const w = window.innerWidth;\n', /'window' is not defined/],
  ['background.js is worker code', 'extension/background.js', 'document.body.append("x");\n', /'document' is not defined/],
  ['extension page: DOM and chrome.*', 'extension/agent/panel/x.js', 'document.title = chrome.runtime.id;\n', null],
  ['extension page: no chrome.debugger', 'extension/bridge/options/x.js', 'chrome.debugger.attach({ tabId: 1 }, "1.3");\n', /chrome\.debugger belongs to the service worker/],
  ['extension page: no service worker globals', 'extension/bridge/approval/x.js', 'clients.claim();\n', /'clients' is not defined/],
  ['extension page: the setup page has DOM and chrome.*', 'extension/bridge/setup/x.js', 'document.title = chrome.runtime.id;\n', null],
  ['extension page: the setup page has no service worker globals', 'extension/bridge/setup/x.js', 'clients.claim();\n', /'clients' is not defined/],
  ['content script: DOM and chrome.runtime', 'extension/bridge/page/x.js', 'chrome.runtime.sendMessage({ n: document.title });\n', null],
  ['content script: no chrome.tabs', 'extension/agent/page/x.js', 'chrome.tabs.query({});\n', /A content script has only chrome\./],
  ['content script: no chrome.debugger', 'extension/bridge/page/x.js', 'chrome.debugger.attach({ tabId: 1 }, "1.3");\n', /A content script has only chrome\./],
  ['content script: an ES module that imports core/ and the messages', 'extension/bridge/page/x.js',
    "import { BRIDGE } from '../../shared/core/messages.js';\nchrome.runtime.sendMessage({ type: BRIDGE.HUMAN });\n", null],
  ['core: standard JavaScript', 'extension/agent/core/x.js',
    'export const f = () => [new URL("https://a.example/"), new TextEncoder(), structuredClone({}), setTimeout(() => {}, 1), fetch, AbortSignal.timeout(1)];\n', null],
  ['core: no chrome', 'extension/bridge/core/x.js', 'export const id = chrome.runtime.id;\n', /'chrome' is not defined/],
  ['core: no document', 'extension/agent/core/x.js', 'export const t = document.title;\n', /'document' is not defined/],
  ['core: no window', 'extension/shared/core/x.js', 'export const w = window;\n', /'window' is not defined/],
  ['core: no browser storage', 'extension/agent/core/x.js', 'export const s = localStorage.getItem("k");\n', /'localStorage' is not defined/],
];

for (const [name, path, code, want] of cases) {
  test(`eslint context ${name}`, async () => {
    const messages = await lint(path, code);
    if (want === null) assert.deepEqual(messages, []);
    else assert.ok(messages.some((m) => want.test(m)), `expected ${want} for ${path}, got ${JSON.stringify(messages)}`);
  });
}
