// The browser.* tools' catalogue and schemas (bridge/core/browser_tools.js),
// validated by the exact subset validator (bridge/core/schema_check.js):
// every schema compiles (so no keyword is silently ignored), and each tool
// takes the calls it should and refuses the others with the keyword that failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BROWSER_NAMES, NO_DEBUGGER, browserCapabilities, browserPromptNotes, browserTool, isBrowserCapability,
} from '../../../bridge/core/browser_tools.js';
import { compileSchema, invalidArgumentsMessage, validate } from '../../../bridge/core/schema_check.js';
import { suggestedDecision, isGrantName } from '../../../bridge/core/grants.js';
import { groupCapabilities } from '../../../bridge/core/grant_table.js';
import { buildCapabilityPrompt } from '../../../bridge/core/capability_prompt.js';
import { CASES } from './browser_cases.js';

const schemas = new Map(browserCapabilities().map((c) => [c.name, compileSchema(c.inputSchema)]));
const keywords = (name, args) => validate(schemas.get(name), args).map((v) => `${v.path} ${v.keyword}`);

test('every browser tool is named browser.<tool>, is a grant name, and its schema compiles in the validator', () => {
  assert.deepEqual(BROWSER_NAMES, [
    'browser.list_tabs', 'browser.screenshot', 'browser.read', 'browser.click', 'browser.double_click', 'browser.right_click',
    'browser.hover', 'browser.drag', 'browser.type', 'browser.key', 'browser.scroll', 'browser.navigate', 'browser.open_tab',
    'browser.close_tab', 'browser.wait',
  ]);
  for (const c of browserCapabilities()) {
    assert.ok(isBrowserCapability(c.name) && isGrantName(c.name), c.name);
    assert.equal(c.inputSchema.type, 'object', c.name);
    assert.equal(c.inputSchema.additionalProperties, false, `${c.name} refuses arguments it does not know`);
    assert.ok(c.title && c.description, c.name);
    assert.equal(c.group, 'browser');
    assert.ok(browserTool(c.name));
  }
  assert.equal(browserTool('computer.click'), null);
  assert.equal(browserTool('browser.nope'), null);
});

test('suggested: Allow for listing, screenshots, reading and waiting; Ask for everything that acts', () => {
  const suggested = Object.fromEntries(browserCapabilities().map((c) => [c.name, suggestedDecision(c.annotations)]));
  const allow = Object.keys(suggested).filter((n) => suggested[n] === 'allow');
  assert.deepEqual(allow, ['browser.list_tabs', 'browser.screenshot', 'browser.read', 'browser.wait']);
  for (const n of Object.keys(suggested)) if (!allow.includes(n)) assert.equal(suggested[n], 'ask', n);
});


for (const [name, args, want] of CASES) {
  test(`${name} ${JSON.stringify(args).slice(0, 60)} → ${want.length ? want.join(', ') : 'valid'}`, () => {
    assert.deepEqual(keywords(name, args), want);
  });
}

test('an invalid call is said as the host says its own: the first violation and how many more', () => {
  const vs = validate(schemas.get('browser.click'), { tabId: 'x', x: 2000, y: 1 });
  assert.equal(invalidArgumentsMessage('browser.click', vs), 'arguments do not match the input schema of "browser.click": /tabId: must be integer, not string (and 1 more)');
});

test('in a browser without chrome.debugger the tools that need it are unavailable, with the reason; the others are not', () => {
  const caps = browserCapabilities({ debugger: false });
  const cannot = caps.filter((c) => c.unavailable).map((c) => c.name);
  assert.deepEqual(cannot, ['browser.screenshot', 'browser.read', 'browser.click', 'browser.double_click', 'browser.right_click', 'browser.hover', 'browser.drag', 'browser.type', 'browser.key', 'browser.scroll']);
  for (const c of caps.filter((x) => x.unavailable)) assert.equal(c.unavailable, NO_DEBUGGER);
  assert.deepEqual(browserCapabilities({ debugger: true }).filter((c) => c.unavailable), []);
});

test('the grants table shows the browser tools as one group, Browser, those this browser cannot run among them', () => {
  const host = [{ name: 'computer.screenshot', annotations: { readOnlyHint: true } }, { name: 'computer.x', unavailable: 'needs MCP tasks' }];
  const groups = groupCapabilities([...host, ...browserCapabilities({ debugger: false })]);
  assert.deepEqual(groups.map((g) => [g.id, g.capabilities.length]), [['read-only', 1], ['unavailable', 1], ['browser', 15]]);
  assert.equal(groups.at(-1).title, 'Browser');
});

test('the capability prompt explains the browser tools it lists, and names those this browser cannot run', () => {
  const caps = [{ name: 'computer.click', inputSchema: { type: 'object', properties: {} } }, ...browserCapabilities({ debugger: false })];
  const decisions = Object.fromEntries(caps.map((c) => [c.name, 'allow']));
  const text = buildCapabilityPrompt(caps, { prefixes: ['computer', 'browser'], decisions });
  assert.match(text, /Browser tools \("browser\.\*"\) work only on the browser tabs the user shares with this chat/);
  assert.match(text, /In this browser "browser\.click", .*"browser\.screenshot", .* cannot run: it has no chrome\.debugger/);
  assert.match(text, /"browser\.list_tabs" \(List shared tabs\) \[read-only\]/);
  assert.doesNotMatch(text, /^"browser\.click"/m, 'a tool this browser cannot run is never offered');
  const chromium = buildCapabilityPrompt(browserCapabilities(), { prefixes: ['browser'], decisions: { 'browser.screenshot': 'allow', 'browser.click': 'ask' } });
  assert.match(chromium, /x and y in the other browser tools are 0 to 999 across the tab's last screenshot/);
  assert.match(chromium, /"browser\.click" \(Click in a shared tab\) \[destructive\] \[asks the user each time\]/);
  assert.doesNotMatch(chromium, /cannot run/);
  assert.deepEqual(browserPromptNotes(browserCapabilities(), [{ name: 'computer.click' }]), [], 'no browser tool listed, no notes');
});

test('each capability\'s schema is a tree of its own: no object reached twice (a structured clone, as Firefox messages are, keeps them apart)', () => {
  const seen = new Set();
  const walk = (v, where) => {
    if (!v || typeof v !== 'object') return;
    assert.ok(!seen.has(v), `${where} is reached twice`);
    seen.add(v);
    for (const [k, x] of Object.entries(v)) walk(x, `${where}/${k}`);
  };
  for (const c of browserCapabilities()) walk(c, c.name);
  for (const c of browserCapabilities()) walk(c, `again ${c.name}`);
});

test('a browser.screenshot attached to the chat is described with the 0..999 rule the browser tools take, not screen pixels', async () => {
  const { imageLine } = await import('../../../bridge/core/image_note.js');
  const line = imageLine('browser.screenshot', { n: 1, of: 1, attached: true, sentMime: 'image/jpeg', width: 2560, height: 1440, sentWidth: 1568, sentHeight: 882 });
  assert.equal(line, 'image 1 of 1: browser.screenshot, 1568×882 JPEG, the tab\'s view. For the browser tools, a point in this image is x and y from 0 to 999 across it, whatever its size: 0,0 is its top-left corner and 999,999 its bottom-right.');
  assert.match(imageLine('browser.screenshot', { n: 1, of: 1, attached: false, mime: 'image/jpeg', bytes: 1000, why: 'the page took no image' }), /not attached: the page took no image\. You cannot see it\.$/);
});
