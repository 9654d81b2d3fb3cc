import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedName, parseToolCall, MAX_CALL_CHARS } from '../../../bridge/core/parser.js';

const click = { capability: 'computer.click', arguments: { x: 10, y: 20 } };

test('accepts exactly one tool call object, bare or in one fence', () => {
  const cases = [
    ['bare object', JSON.stringify(click), click],
    ['pretty printed with surrounding blank lines', `\n\n${JSON.stringify(click, null, 2)}\n  `, click],
    ['json fence', '```json\n' + JSON.stringify(click) + '\n```', click],
    ['fence without info string', '```\n' + JSON.stringify(click) + '\n```', click],
    ['tilde fence', '~~~json\n' + JSON.stringify(click) + '\n~~~', click],
    ['four-backtick fence', '````json\n' + JSON.stringify(click) + '\n````', click],
    ['CRLF line ends', '```json\r\n' + JSON.stringify(click) + '\r\n```', click],
    ['arguments omitted default to {}', '{"capability":"computer.screenshot"}', { capability: 'computer.screenshot', arguments: {} }],
    ['meta capability', '{"capability":"capabilities.list"}', { capability: 'capabilities.list', arguments: {} }],
    ['meta describe', '{"capability":"capabilities.describe","arguments":{"name":"computer.click"}}',
      { capability: 'capabilities.describe', arguments: { name: 'computer.click' } }],
    ['empty arguments object', '{"capability":"computer.screenshot","arguments":{}}', { capability: 'computer.screenshot', arguments: {} }],
    ['nested argument values', '{"arguments":{"a":[1,{"b":null}]},"capability":"computer.x"}',
      { capability: 'computer.x', arguments: { a: [1, { b: null }] } }],
  ];
  for (const [name, text, want] of cases) {
    assert.deepEqual(parseToolCall(text), { ok: true, call: want }, name);
  }
});

test('never passes prose, partial JSON, arrays, several objects or wrong shapes', () => {
  const cases = [
    ['prose', 'Sure! I will click the button now.'],
    ['prose before the object', 'Here you go: ' + JSON.stringify(click)],
    ['prose after the object', JSON.stringify(click) + ' Done.'],
    ['prose around a fence', 'Call:\n```json\n' + JSON.stringify(click) + '\n```'],
    ['text after a fence', '```json\n' + JSON.stringify(click) + '\n```\nthen wait'],
    ['partial while streaming', '{"capability":"computer.click","argum'],
    ['partial missing the last brace', '{"capability":"computer.click","arguments":{"x":1}'],
    ['unterminated fence', '```json\n' + JSON.stringify(click)],
    ['fence closed then another fence', '```json\n{"capability":"computer.a"}\n```\n```json\n{"capability":"computer.b"}\n```'],
    ['two objects', JSON.stringify(click) + JSON.stringify(click)],
    ['two objects on lines', JSON.stringify(click) + '\n' + JSON.stringify(click)],
    ['array of calls', JSON.stringify([click])],
    ['array in a fence', '```json\n' + JSON.stringify([click]) + '\n```'],
    ['a JSON string', JSON.stringify(JSON.stringify(click))],
    ['a number', '42'],
    ['null', 'null'],
    ['empty', ''],
    ['whitespace', '   \n '],
    ['no capability', '{"arguments":{}}'],
    ['empty capability', '{"capability":""}'],
    ['capability not a string', '{"capability":5}'],
    ['capability without prefix', '{"capability":"click"}'],
    ['unknown prefix', '{"capability":"shell.exec"}'],
    ['prefix only', '{"capability":"computer."}'],
    ['dot first', '{"capability":".click"}'],
    ['a leading space in the name', '{"capability":"computer. click"}'],
    ['two spaces in the name', '{"capability":"computer.cl  ick"}'],
    ['a trailing space in the name', '{"capability":"computer.click "}'],
    ['a tab in the name', '{"capability":"computer.cl\\tick"}'],
    ['a zero-width joiner in the name', '{"capability":"computer.cl\u200dick"}'],
    ['a bidi override in the name', '{"capability":"computer.cli\u202eck"}'],
    ['a name over 128 bytes', `{"capability":"computer.${'a'.repeat(129)}"}`],
    ['prefix lookalike', '{"capability":"computerx.click"}'],
    ['arguments null', '{"capability":"computer.click","arguments":null}'],
    ['arguments array', '{"capability":"computer.click","arguments":[1,2]}'],
    ['arguments string', '{"capability":"computer.click","arguments":"x=1"}'],
    ['extra key', '{"capability":"computer.click","arguments":{},"reason":"because"}'],
    ['single quotes', "{'capability':'computer.click'}"],
    ['trailing comma', '{"capability":"computer.click",}'],
    ['comment', '{"capability":"computer.click"} // click'],
    ['not text', null],
  ];
  for (const [name, text] of cases) {
    const got = parseToolCall(text);
    assert.equal(got.ok, false, `${name}: ${JSON.stringify(got)}`);
    assert.equal(typeof got.reason, 'string', name);
  }
});

test('uses every prefix the host reports and ignores malformed ones', () => {
  const prefixes = ['computer', 'office', 'bad prefix', '', 7];
  assert.equal(parseToolCall('{"capability":"office.open"}', { prefixes }).ok, true);
  assert.equal(parseToolCall('{"capability":"computer.click","arguments":{"x":1}}', { prefixes }).ok, true);
  assert.equal(parseToolCall('{"capability":"bad prefix.x"}', { prefixes }).ok, false);
  assert.equal(parseToolCall('{"capability":"computer.click"}', { prefixes: ['office'] }).ok, false);
  assert.equal(parseToolCall('{"capability":"capabilities.list"}', { prefixes: [] }).ok, true);
});

test('allowedName checks the head against prefixes and the rest for a name', () => {
  const table = [
    ['computer.click', true], ['capabilities.describe', true], ['computer.sub.tool', true],
    ['computer', false], ['other.click', false], ['computer.', false],
    // Names the host accepts (runtime/toolname.go): single inner spaces, any visible script.
    ['computer.greet (structured)', true], ['computer.simple greeting', true], ['computer.截图', true],
    ['computer.a  b', false], ['computer. a', false], ['computer.a ', false], ['computer.a\u00a0b', false], ['computer.a\u3164', false], ['computer.a\ufe0f', false], ['computer.\u2800', false],
  ];
  for (const [name, want] of table) assert.equal(allowedName(name), want, name);
});

test('refuses text over the size limit without parsing it', () => {
  const huge = '{"capability":"computer.type_text","arguments":{"text":"' + 'a'.repeat(MAX_CALL_CHARS) + '"}}';
  assert.deepEqual(parseToolCall(huge), { ok: false, reason: 'too long' });
});

function lcg(seed) {
  return () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

// What a passing text must be, checked without the parser's own code: one
// JSON object with a capability under computer. or capabilities. and an
// optional arguments object, alone or alone inside one code fence.
function exactCall(text, call) {
  const body = text.replace(/\r\n?/g, '\n');
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) return 'no object in the text';
  const before = body.slice(0, start);
  const after = body.slice(end + 1);
  const fenced = /^\s*(`{3,}|~{3,})[^\n`]*\n\s*$/.exec(before);
  if (fenced) {
    if (!new RegExp(`^\\s*${fenced[1]}[ \\t]*$`).test(after)) return 'a fence that does not close alone';
  } else if (before.trim() !== '' || after.trim() !== '') {
    return 'text outside the object';
  }
  let value;
  try { value = JSON.parse(body.slice(start, end + 1)); } catch { return 'not JSON'; }
  const keys = Object.keys(value).sort().join(',');
  if (keys !== 'capability' && keys !== 'arguments,capability') return `keys ${keys}`;
  if (!/^(computer|capabilities)\.[^\s\p{C}\p{Z}]+(?: [^\s\p{C}\p{Z}]+)*$/u.test(value.capability)) return `capability ${value.capability}`;
  const args = value.arguments ?? {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'arguments not an object';
  assert.deepEqual(call, { capability: value.capability, arguments: args }, text);
  return '';
}

test('mutated calls pass the gate only as the exact call their text holds, and never throw', () => {
  const rnd = lcg(1);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const seeds = [
    JSON.stringify(click),
    '{"capability":"capabilities.list"}',
    '```json\n{"capability":"computer.type_text","arguments":{"text":"hi"}}\n```',
    '~~~\n{"arguments":{"a":[1,{"b":null}]},"capability":"computer.x"}\n~~~',
  ];
  const alphabet = '{}[]":,.\\ `~\nabcdeilmnoprstuy0123456789';
  let passed = 0;
  let refused = 0;
  for (let i = 0; i < 20000; i++) {
    let s = pick(seeds);
    for (let edits = 1 + Math.floor(rnd() * 3); edits > 0; edits--) {
      const at = Math.floor(rnd() * (s.length + 1));
      const op = Math.floor(rnd() * 4);
      if (op === 0) s = s.slice(0, at) + s.slice(at + 1);
      else if (op === 1) s = s.slice(0, at) + pick(alphabet) + s.slice(at);
      else if (op === 2) s = s.slice(0, at) + pick(alphabet) + s.slice(at + 1);
      else s = s.slice(0, at) + s.slice(at, at + Math.floor(rnd() * 20)) + s.slice(at);
    }
    const got = parseToolCall(s);
    if (got.ok) {
      passed++;
      assert.equal(exactCall(s, got.call), '', `passed the gate: ${JSON.stringify(s)}`);
    } else {
      refused++;
      assert.equal(typeof got.reason, 'string');
    }
  }
  // Both sides of the gate were exercised, so the checks above ran on real passes.
  assert.ok(passed > 100, `only ${passed} mutants passed`);
  assert.ok(refused > 100, `only ${refused} mutants were refused`);
});

test('random text without a brace or without a capability key never passes', () => {
  const rnd = lcg(7);
  const noBrace = '[]":,.\\ `~\nabcdeilmnoprstuy0123456789';
  for (let i = 0; i < 5000; i++) {
    let s = '';
    for (let n = Math.floor(rnd() * 60); n > 0; n--) s += noBrace[Math.floor(rnd() * noBrace.length)];
    assert.equal(parseToolCall(s).ok, false, JSON.stringify(s));
    // An object whose only keys are random words is never a call either.
    const key = s.replace(/[^a-z]/g, '').slice(0, 12) || 'x';
    if (key !== 'capability' && key !== 'arguments') {
      assert.equal(parseToolCall(JSON.stringify({ [key]: 'computer.click' })).ok, false, key);
    }
  }
});
