// The grants table for servers with dozens of tools: which group each tool
// falls in, which groups start folded, the filter, a group's counts and bulk
// choice, and the words for clashing policy keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FOLD_ABOVE, GROUPS, clashView, countDecisions, groupCapabilities, groupOf, groupSummary, matchesFilter, setEach, startsFolded, uniformDecision,
} from '../../../bridge/core/grant_table.js';
import { badgesFor } from '../../../bridge/core/grants.js';

const tools = [
  { name: 'computer.screenshot', title: 'Take a screenshot', description: 'Capture the screen as a PNG.', annotations: { readOnlyHint: true } },
  { name: 'files.purge', description: 'Remove every file.', annotations: { readOnlyHint: true, destructiveHint: true } },
  { name: 'files.delete', description: 'Delete one file.', annotations: { destructiveHint: true } },
  { name: 'computer.click', title: 'Click', description: 'Click a point.', annotations: { readOnlyHint: false, destructiveHint: false } },
  { name: 'computer.move_mouse', description: 'Move the pointer.' },
  { name: 'computer.research', description: 'Long research.', unavailable: 'requires MCP task augmentation' },
];

test('each tool falls in the group its badges describe; no hints is "other"; what cannot run is apart', () => {
  assert.deepEqual(tools.map(groupOf), ['read-only', 'destructive', 'destructive', 'other', 'other', 'unavailable']);
  for (const t of tools.filter((c) => !c.unavailable)) {
    const keys = badgesFor(t.annotations).map((b) => b.key);
    const g = groupOf(t);
    assert.equal(keys.includes('destructive'), g === 'destructive', t.name);
    assert.equal(keys.includes('read-only') && !keys.includes('destructive'), g === 'read-only', t.name);
  }
});

test('groups come in a fixed order, keep the given order inside, and leave out empty ones', () => {
  const groups = groupCapabilities(tools);
  assert.deepEqual(groups.map((g) => g.id), ['read-only', 'destructive', 'other', 'unavailable']);
  assert.deepEqual(groups[1].capabilities.map((c) => c.name), ['files.purge', 'files.delete']);
  assert.deepEqual(groupCapabilities([tools[3]]).map((g) => g.id), ['other']);
  assert.deepEqual(groupCapabilities(undefined), []);
  assert.ok(GROUPS.every((g) => g.title && g.hint));
});

test(`a group of more than ${FOLD_ABOVE} tools starts folded`, () => {
  const many = (n) => ({ capabilities: Array.from({ length: n }, (_, i) => ({ name: `x.t${i}` })) });
  assert.equal(startsFolded(many(FOLD_ABOVE)), false);
  assert.equal(startsFolded(many(FOLD_ABOVE + 1)), true);
});

test('the filter narrows by name, title or description; every word must match, case ignored', () => {
  const names = (q) => tools.filter((c) => matchesFilter(c, q)).map((c) => c.name);
  assert.equal(names('').length, tools.length);
  assert.equal(names('   ').length, tools.length);
  assert.deepEqual(names('SCREEN'), ['computer.screenshot']);
  assert.deepEqual(names('png'), ['computer.screenshot'], 'description');
  assert.deepEqual(names('click'), ['computer.click']);
  assert.deepEqual(names('files file'), ['files.purge', 'files.delete']);
  assert.deepEqual(names('delete one'), ['files.delete']);
  assert.deepEqual(names('delete every'), []);
});

test("a group's header counts its decisions and shows a bulk choice only when they agree", () => {
  const choices = { a: 'allow', b: 'allow', c: 'ask', d: 'deny' };
  assert.deepEqual(countDecisions(choices, ['a', 'b', 'c']), { allow: 2, ask: 1, deny: 0 });
  assert.equal(groupSummary(choices, ['a', 'b', 'c', 'd']), '2 allowed · 1 ask · 1 blocked');
  assert.equal(groupSummary(choices, ['d']), '1 blocked');
  assert.equal(groupSummary(choices, []), 'none');
  assert.equal(uniformDecision(choices, ['a', 'b']), 'allow');
  assert.equal(uniformDecision(choices, ['a', 'c']), null);
  assert.equal(uniformDecision(choices, []), null);
  assert.equal(uniformDecision({ a: 'maybe' }, ['a']), null);
  assert.deepEqual(setEach(['a', 'c'], 'deny'), { a: 'deny', c: 'deny' });
  assert.throws(() => setEach(['a'], 'all'), /allow, ask or deny/);
});

test('clashing keys: which keys, that the origin gets nothing, and how saving fixes it', () => {
  const own = clashView({ origin: 'https://x.example.net', keys: ['HTTPS://X.EXAMPLE.NET', 'https://x.example.net'] }, 'https://x.example.net');
  assert.match(own.title, /This site gets nothing until the configuration is fixed/);
  assert.match(own.lead, /under 2 keys that mean the same origin/);
  assert.deepEqual(own.keys, ['HTTPS://X.EXAMPLE.NET', 'https://x.example.net']);
  assert.match(own.fix, /writes one key in place of them/);
  const glob = clashView({ origin: 'https://*.example.net', keys: ['https://*.EXAMPLE.net', 'https://*.example.net'] }, 'https://x.example.net');
  assert.match(glob.title, /Every site this entry covers gets nothing/);
  assert.match(glob.lead, /entry for https:\/\/\*\.example\.net, which covers this site/);
  assert.match(glob.fix, /an entry of its own/);
  for (const v of [own, glob]) assert.doesNotMatch(Object.values(v).join(' '), /`|options page/);
});
