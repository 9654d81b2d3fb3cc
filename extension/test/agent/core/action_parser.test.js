// The strict action parser: every action in the facts table, the lenient
// forms, and every error it reports.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseReply, formatAction, ACTIONS } from '../../../agent/core/action_parser.js';

const wrap = (a) => `<think>reason</think>\n<action>${a}</action>`;

const valid = [
  ['Click(point=(120,340))', 'Click', { point: [120, 340] }],
  ['Click(box=[0, 999])', 'Click', { point: [0, 999] }],
  ['Click(start_box=(5,6))', 'Click', { point: [5, 6] }],
  ['Click((7,8))', 'Click', { point: [7, 8] }],
  ['Click(7, 8)', 'Click', { point: [7, 8] }],
  ['DoubleClick(point=(1,2))', 'DoubleClick', { point: [1, 2] }],
  ['Hover(point=(500.5,2))', 'Hover', { point: [500.5, 2] }],
  ['LongPress(point=(1,2))', 'LongPress', { point: [1, 2] }],
  ['LongPress(point=(1,2), duration=2.5)', 'LongPress', { point: [1, 2], duration: 2.5 }],
  ['Drag(start=(1,2), end=(3,4))', 'Drag', { start: [1, 2], end: [3, 4] }],
  ['Drag(start_box=[1,2], end_box=[3,4])', 'Drag', { start: [1, 2], end: [3, 4] }],
  ["Scroll(point=(500,500), direction='down')", 'Scroll', { point: [500, 500], direction: 'down' }],
  ['Scroll(point=(1,1), direction="UP")', 'Scroll', { point: [1, 1], direction: 'up' }],
  ["Scroll((1,1), 'left')", 'Scroll', { point: [1, 1], direction: 'left' }],
  ["Type(content='hello')", 'Type', { content: 'hello' }],
  ['Type(content="say \\"hi\\"\\nnext \\\\ \\u00e9")', 'Type', { content: 'say "hi"\nnext \\ é' }],
  ["Type(content='it\\'s')", 'Type', { content: "it's" }],
  ["Type(content='a, b) <x>')", 'Type', { content: 'a, b) <x>' }],
  ["Hotkey(keys=('ctrl','c'))", 'Hotkey', { keys: ['ctrl', 'c'] }],
  ["Hotkey(key='ctrl+shift+t')", 'Hotkey', { keys: ['ctrl', 'shift', 't'] }],
  ["Hotkey('cmd', 'a')", 'Hotkey', { keys: ['cmd', 'a'] }],
  ["Hotkey(keys=['tab'], repeat=3)", 'Hotkey', { keys: ['tab'], repeat: 3 }],
  ['PressEnter()', 'PressEnter', {}],
  ['PressBack()', 'PressBack', {}],
  ['PressHome()', 'PressHome', {}],
  ["Launch(url='https://example.com/a?b=1')", 'Launch', { url: 'https://example.com/a?b=1' }],
  ["Launch(url='example.com')", 'Launch', { url: 'https://example.com/' }],
  ['Wait()', 'Wait', {}],
  ['Wait', 'Wait', {}],
  ["SelectOption(point=(10,20), text='Blue')", 'SelectOption', { point: [10, 20], text: 'Blue' }],
  ["SelectOption(point=(10,20), option='Blue')", 'SelectOption', { point: [10, 20], text: 'Blue' }],
  ['SelectOption(index=2)', 'SelectOption', { index: 2 }],
  ["SelectOption(value='b')", 'SelectOption', { value: 'b' }],
  ['GetUrl()', 'GetUrl', {}],
  ["TakeNote(content='price is 3')", 'TakeNote', { content: 'price is 3' }],
  ["Upload(file='docs/a.pdf')", 'Upload', { file: 'docs/a.pdf' }],
  ["Download(filename='report.pdf')", 'Download', { filename: 'report.pdf' }],
  ["Finished(content='42')", 'Finished', { content: '42' }],
  ['Finished()', 'Finished', {}],
  ["CallUser(content='Which account?')", 'CallUser', { content: 'Which account?' }],
  ['RightClick(point=(5,6))', 'RightClick', { point: [5, 6] }],
  ["SwitchSurface(surface='desktop')", 'SwitchSurface', { surface: 'desktop' }],
  ["SwitchSurface(to='Tab')", 'SwitchSurface', { surface: 'tab' }],
];

for (const [src, name, args] of valid) {
  test(`parses ${src}`, () => {
    const r = parseReply(wrap(src));
    assert.equal(r.ok, true, r.error);
    assert.deepEqual(r.action, { name, args });
    assert.equal(r.think, 'reason');
  });
}

test('every action in the table has a valid example', () => {
  const covered = new Set(valid.map((v) => v[1]));
  assert.deepEqual(Object.keys(ACTIONS).filter((a) => !covered.has(a)), []);
});

test('lenient forms: no think, an Action: line, text before the action', () => {
  assert.deepEqual(parseReply('<action>PressEnter()</action>').action, { name: 'PressEnter', args: {} });
  const line = parseReply('I will press the button.\nAction: Click(point=(1,2))');
  assert.deepEqual(line.action, { name: 'Click', args: { point: [1, 2] } });
  assert.equal(line.think, 'I will press the button.');
  assert.equal(parseReply('Thinking <action>Wait()</action>').think, 'Thinking');
});

const errors = [
  ['', /empty/],
  ['just prose', /no action found/],
  ['<action>Wait()</action><action>Wait()</action>', /exactly one <action>, found 2/],
  ['Action: Wait()\nAction: Wait()', /exactly one Action: line, found 2/],
  ['<action>Wait()', /not closed/],
  ['<action>  </action>', /empty/],
  [wrap('Explode()'), /unknown action Explode/],
  [wrap('click(point=(1,2))'), /unknown action click/],
  [wrap('(1,2)'), /must start with an action name/],
  [wrap('Click point'), /expected "\(" after Click/],
  [wrap('Click(point=(1,2)'), /not closed with "\)"/],
  [wrap('Click(point=(1,2)) Wait()'), /exactly one action/],
  [wrap('Click(point=(1000,2))'), /1000 is outside 0\.\.999/],
  [wrap('Click(point=(-1,2))'), /-1 is outside 0\.\.999/],
  [wrap('Click(point=(1,2,3))'), /must be a point/],
  [wrap("Click(point='here')"), /must be a point/],
  [wrap('Click()'), /Click needs point/],
  [wrap('Click(pt=(1,2))'), /Click has no argument pt/],
  [wrap('Click(point=(1,2), box=(3,4))'), /given twice/],
  [wrap('Click(point=(1,2), point=(3,4))'), /given twice/],
  [wrap('Type(content=hello)'), /strings must be quoted/],
  [wrap("Type(content='open)"), /unterminated string/],
  [wrap('Type(content=5)'), /must be a quoted string/],
  [wrap("Type('a', 'b')"), /at most 1 argument/],
  [wrap("Type(content='a', 'b')"), /positional argument follows a keyword/],
  [wrap("Scroll(point=(1,1), direction='sideways')"), /direction must be one of up, down, left, right/],
  [wrap("Scroll(direction='up', (1,1))"), /positional argument follows a keyword/],
  [wrap('LongPress(point=(1,1), duration=31)'), /above 30/],
  [wrap('LongPress(point=(1,1), duration=-1)'), /below 0/],
  [wrap("LongPress(point=(1,1), duration='x')"), /must be a number/],
  [wrap("Hotkey(keys=('ctrl','shift','alt','t'))"), /1 to 3 keys, got 4/],
  [wrap('Hotkey(keys=())'), /1 to 3 keys, got 0/],
  [wrap("Hotkey(keys=('a'), repeat=1.5)"), /whole number/],
  [wrap("Hotkey(keys=('a'), repeat=0)"), /below 1/],
  [wrap('Hotkey(keys=(1,2))'), /key names/],
  [wrap("Launch(url='ftp://x.org')"), /http or https/],
  [wrap("Launch(url='javascript:alert(1)')"), /http or https/],
  [wrap("Launch(url='https://')"), /not a valid URL/],
  [wrap('SelectOption(point=(1,1))'), /exactly one of index, value or text/],
  [wrap("SelectOption(index=1, text='a')"), /exactly one of index, value or text/],
  [wrap('SelectOption(index=-1)'), /below 0/],
  [wrap('Drag(start=(1,2))'), /Drag needs end/],
  [wrap('CallUser()'), /CallUser needs content/],
  [wrap('Click(point=((1,2)))'), /tuple may hold only numbers or strings/],
  [wrap('Click(point=(1 2))'), /expected "," or "\)" in a tuple/],
  [wrap('Click(point=(1,2)'), /not closed/],
  [wrap('Click(point=(1,2) (3,4))'), /expected "," or "\)"/],
  [wrap('Click(point=(1,2); rm -rf)'), /unexpected character/],
  [wrap('Wait(1)'), /at most 0 argument/],
];

for (const [src, re] of errors) {
  test(`rejects ${JSON.stringify(src).slice(0, 70)}`, () => {
    const r = parseReply(src);
    assert.equal(r.ok, false, `parsed ${JSON.stringify(r.action)}`);
    assert.match(r.error, re);
  });
}

test('formatAction round-trips through the parser', () => {
  for (const [src] of valid) {
    const a = parseReply(wrap(src)).action;
    assert.deepEqual(parseReply(wrap(formatAction(a))).action, a, formatAction(a));
  }
});

test('random input never throws', () => {
  const alphabet = 'Click(point=)[],\'"\\ 0123456789<action></action>TypeHotkey=';
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < 3000; i++) {
    let s = '';
    const n = Math.floor(rnd() * 40);
    for (let j = 0; j < n; j++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    const r = parseReply(s);
    assert.equal(typeof r.ok, 'boolean');
  }
});

test('a larger coordinate bound is accepted for absolute-pixel models', () => {
  assert.deepEqual(parseReply(wrap('Click(point=(1500,800))'), { maxCoord: 20000 }).action.args, { point: [1500, 800] });
  assert.match(parseReply(wrap('Click(point=(1500,800))')).error, /outside 0\.\.999/);
});
