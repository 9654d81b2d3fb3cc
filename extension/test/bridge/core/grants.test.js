// The per-origin grants the options page shows and the worker sends to the
// host: MCP hint defaults, badges, suggestions for a new origin, the summary,
// and the check of a grants object.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  badgesFor, checkGrants, initialChoices, isGrantName, providerCapabilities, setAll, suggestedDecision, summarize, titleOf, toolHints,
} from '../../../bridge/core/grants.js';

test('absent hints take the MCP defaults: not read-only, destructive, not idempotent, open-world', () => {
  const table = [
    ['no annotations', undefined, { readOnly: false, destructive: true, idempotent: false, openWorld: true }],
    ['empty annotations', {}, { readOnly: false, destructive: true, idempotent: false, openWorld: true }],
    ['read-only, other hints absent', { readOnlyHint: true }, { readOnly: true, destructive: false, idempotent: true, openWorld: true }],
    ['read-only but says destructive', { readOnlyHint: true, destructiveHint: true }, { readOnly: true, destructive: true, idempotent: true, openWorld: true }],
    ['additive, idempotent, closed world', { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      { readOnly: false, destructive: false, idempotent: true, openWorld: false }],
    ['hints that are not booleans count as absent', { readOnlyHint: 'yes', destructiveHint: 0 }, { readOnly: false, destructive: true, idempotent: false, openWorld: true }],
  ];
  for (const [name, annotations, want] of table) assert.deepEqual(toolHints(annotations), want, name);
});

test('badges name what the hints say, destructive first; a tool with no hints says so', () => {
  const keys = (a) => badgesFor(a).map((b) => b.key);
  assert.deepEqual(keys(undefined), ['no-hints']);
  assert.deepEqual(keys({}), ['no-hints']);
  assert.deepEqual(keys({ title: 'Only a title' }), ['no-hints']);
  assert.deepEqual(keys({ readOnlyHint: false }), ['destructive', 'open-world'], 'one hint given: the others take their defaults');
  assert.deepEqual(keys({ readOnlyHint: true, openWorldHint: false }), ['read-only']);
  assert.deepEqual(keys({ readOnlyHint: true }), ['read-only', 'open-world']);
  assert.deepEqual(keys({ destructiveHint: false, idempotentHint: true, openWorldHint: false }), ['idempotent']);
  assert.deepEqual(keys({ destructiveHint: true, idempotentHint: true }), ['destructive', 'idempotent', 'open-world']);
});

test('a new origin is suggested Allow only for read-only tools that are not destructive', () => {
  assert.equal(suggestedDecision({ readOnlyHint: true }), 'allow');
  assert.equal(suggestedDecision({ readOnlyHint: true, destructiveHint: true }), 'ask');
  assert.equal(suggestedDecision({ readOnlyHint: false, destructiveHint: false }), 'ask');
  assert.equal(suggestedDecision(undefined), 'ask');
  assert.equal(suggestedDecision({ destructiveHint: true }), 'ask');
});

const caps = providerCapabilities([
  { name: 'computer.screenshot', description: 'Look.', title: 'Take a screenshot', annotations: { readOnlyHint: true } },
  { name: 'capabilities.list', description: 'List.' },
  { name: 'computer.click', description: 'Click.' },
  { name: 'files.delete', description: 'Delete.', annotations: { title: 'Delete a file', readOnlyHint: true, destructiveHint: true } },
]);

test('provider capabilities leave out the meta ones and are sorted by name', () => {
  assert.deepEqual(caps.map((c) => c.name), ['computer.click', 'computer.screenshot', 'files.delete']);
  assert.deepEqual(providerCapabilities(undefined), []);
});

test('titles come from the tool, then its annotations, then the name', () => {
  assert.deepEqual(caps.map(titleOf), ['computer.click', 'Take a screenshot', 'Delete a file']);
  assert.equal(titleOf({ name: 'a.b', title: '   ' }), 'a.b');
});

test('initial choices: suggestions for an origin with no entry, the host\'s decisions for a configured one', () => {
  assert.deepEqual(initialChoices(caps, { configured: false, decisions: { 'computer.click': 'deny' } }),
    { 'computer.click': 'ask', 'computer.screenshot': 'allow', 'files.delete': 'ask' });
  assert.deepEqual(initialChoices(caps, { configured: true, decisions: { 'computer.click': 'allow', 'computer.screenshot': 'ask', 'files.delete': 'weird' } }),
    { 'computer.click': 'allow', 'computer.screenshot': 'ask', 'files.delete': 'deny' });
});

test('the summary counts each decision, and quick actions set them all', () => {
  const choices = { a: 'allow', b: 'allow', c: 'ask', d: 'deny', e: 'ask' };
  assert.equal(summarize(choices), '2 allowed, 2 ask, 1 blocked');
  assert.equal(summarize({}), '0 allowed, 0 ask, 0 blocked');
  assert.equal(summarize(setAll(choices, 'deny')), '0 allowed, 0 ask, 5 blocked');
  assert.deepEqual(setAll({ a: 'allow', b: 'deny' }, 'ask'), { a: 'ask', b: 'ask' });
  assert.throws(() => setAll(choices, 'maybe'), /allow, ask or deny/);
});

test('grants leave the worker only as "<prefix>.<tool>" → allow, ask or deny', () => {
  assert.deepEqual(checkGrants({ 'computer.click': 'allow', 'files.x.y': 'deny' }), { 'computer.click': 'allow', 'files.x.y': 'deny' });
  assert.deepEqual(checkGrants({}), {});
  const bad = [
    [null, /must be an object/],
    [['computer.click'], /must be an object/],
    [{ 'computer.*': 'allow' }, /must be <prefix>\.<tool>/],
    [{ '*': 'allow' }, /must be <prefix>\.<tool>/],
    [{ click: 'allow' }, /must be <prefix>\.<tool>/],
    [{ 'capabilities.list': 'deny' }, /must be <prefix>\.<tool>/],
    [{ 'computer.click': 'yes' }, /must be allow, ask or deny/],
    [{ 'computer.click': true }, /must be allow, ask or deny/],
  ];
  for (const [grants, want] of bad) assert.throws(() => checkGrants(grants), want, JSON.stringify(grants));
  assert.equal(isGrantName('.click'), false);
  assert.equal(isGrantName('computer.'), false);
});

test('a grant name may hold single spaces between visible characters in its tool part, nothing else invisible', () => {
  const table = [
    ['computer.greet (structured)', true],
    ['computer.simple greeting', true],
    ['files.x.y', true],
    ['computer. greet', false],
    ['computer.greet ', false],
    ['computer.two  spaces', false],
    ['comp uter.click', false],
    ['computer.no\u00a0break', false],
    ['computer.zero\u200bwidth', false],
    ['computer.tab\there', false],
    ['computer.rtl\u202eoverride', false],
    ['computer.greet (*)', false],
  ];
  for (const [name, want] of table) assert.equal(isGrantName(name), want, JSON.stringify(name));
  assert.deepEqual(checkGrants({ 'computer.greet (structured)': 'ask' }), { 'computer.greet (structured)': 'ask' });
});

test('provider capabilities keep the host\'s reason a tool cannot run', () => {
  const [c] = providerCapabilities([{ name: 'computer.research', description: 'R.', unavailable: 'requires MCP task augmentation' }]);
  assert.equal(c.unavailable, 'requires MCP task augmentation');
  assert.equal('unavailable' in providerCapabilities([{ name: 'computer.click', unavailable: '' }])[0], false);
});
