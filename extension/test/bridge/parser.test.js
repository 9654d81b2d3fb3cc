import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedName, parseToolCall, MAX_CALL_CHARS } from '../../bridge/parser.js';

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
    ['space in name', '{"capability":"computer.cl ick"}'],
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
    ['computer', false], ['other.click', false], ['computer.', false], ['computer.a b', false],
  ];
  for (const [name, want] of table) assert.equal(allowedName(name), want, name);
});

test('refuses text over the size limit without parsing it', () => {
  const huge = '{"capability":"computer.type_text","arguments":{"text":"' + 'a'.repeat(MAX_CALL_CHARS) + '"}}';
  assert.deepEqual(parseToolCall(huge), { ok: false, reason: 'too long' });
});

test('random bytes never pass the gate and never throw', () => {
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const alphabet = '{}[]":,.\\ `~\nabcdeilmnoprstuy0123456789';
  for (let i = 0; i < 5000; i++) {
    let s = '';
    const n = Math.floor(rnd() * 60);
    for (let j = 0; j < n; j++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    const got = parseToolCall(s);
    if (got.ok) assert.match(got.call.capability, /^(computer|capabilities)\./);
  }
});
