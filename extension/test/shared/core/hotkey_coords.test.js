// Hotkey names to CDP key events, and model coordinates to CSS pixels.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeKey, chordEvents, platformOf, MODIFIER_BITS } from '../../../shared/core/hotkey.js';
import { toCss, toNormalized } from '../../../shared/core/coords.js';

const keys = [
  ['ctrl', 'linux', { modifier: 'Control', key: 'Control' }],
  ['Control', 'mac', { modifier: 'Control', key: 'Control' }],
  ['cmd', 'mac', { modifier: 'Meta', key: 'Meta' }],
  ['command', 'linux', { modifier: 'Control', key: 'Control' }],
  ['cmd', 'windows', { modifier: 'Control', key: 'Control' }],
  ['win', 'windows', { modifier: 'Meta', key: 'Meta' }],
  ['option', 'mac', { modifier: 'Alt', key: 'Alt' }],
  ['Shift', 'linux', { modifier: 'Shift', key: 'Shift' }],
  ['enter', 'linux', { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' }],
  ['Return', 'linux', { key: 'Enter', keyCode: 13 }],
  ['esc', 'linux', { key: 'Escape', keyCode: 27 }],
  ['Tab', 'linux', { key: 'Tab', keyCode: 9 }],
  ['arrow_up', 'linux', { key: 'ArrowUp', keyCode: 38 }],
  ['down', 'linux', { key: 'ArrowDown', keyCode: 40 }],
  ['ArrowLeft', 'linux', { key: 'ArrowLeft', keyCode: 37 }],
  ['page down', 'linux', { key: 'PageDown', keyCode: 34 }],
  ['F5', 'linux', { key: 'F5', code: 'F5', keyCode: 116 }],
  ['f12', 'linux', { key: 'F12', keyCode: 123 }],
  ['a', 'linux', { key: 'a', code: 'KeyA', keyCode: 65, text: 'a' }],
  ['7', 'linux', { key: '7', code: 'Digit7', keyCode: 55 }],
  ['space', 'linux', { key: ' ', code: 'Space', keyCode: 32 }],
  ['/', 'linux', { key: '/', code: 'Slash', keyCode: 191 }],
  ['backspace', 'linux', { key: 'Backspace', keyCode: 8 }],
  ['del', 'linux', { key: 'Delete', keyCode: 46 }],
];
for (const [name, platform, want] of keys) {
  test(`key ${JSON.stringify(name)} on ${platform}`, () => {
    const d = describeKey(name, platform);
    for (const [k, v] of Object.entries(want)) assert.equal(d[k], v, `${k} of ${name}`);
  });
}

test('unknown keys are errors', () => {
  for (const k of ['hyper', 'f13', '', 'ctrl+c', '€']) assert.match(describeKey(k).error, /key/);
});

test('ctrl+c: modifier down, key down with mask and no text, key up, modifier up', () => {
  const { events } = chordEvents(['ctrl', 'c'], 'linux');
  assert.deepEqual(events.map((e) => [e.type, e.key, e.modifiers]), [
    ['rawKeyDown', 'Control', MODIFIER_BITS.Control],
    ['rawKeyDown', 'c', MODIFIER_BITS.Control],
    ['keyUp', 'c', MODIFIER_BITS.Control],
    ['keyUp', 'Control', MODIFIER_BITS.Control],
  ]);
  assert.equal(events[1].text, undefined);
});

test('cmd+shift+t on mac uses Meta', () => {
  const { events } = chordEvents(['cmd', 'shift', 't'], 'mac');
  assert.equal(events[2].modifiers, MODIFIER_BITS.Meta | MODIFIER_BITS.Shift);
  assert.equal(events[2].key, 't');
});

test('Enter alone types a carriage return; shift+a types A', () => {
  assert.deepEqual(chordEvents(['enter']).events.map((e) => [e.type, e.text]), [['keyDown', '\r'], ['keyUp', undefined]]);
  const shiftA = chordEvents(['shift', 'a']).events;
  assert.equal(shiftA[1].text, 'A');
});

test('chord errors', () => {
  assert.match(chordEvents(['a', 'b']).error, /at most one non-modifier/);
  assert.match(chordEvents([]).error, /1 to 3/);
  assert.match(chordEvents(['ctrl', 'shift', 'alt', 'x']).error, /1 to 3/);
  assert.match(chordEvents(['ctrl', 'nokey']).error, /unknown key/);
});

test('platformOf', () => {
  assert.equal(platformOf('mac'), 'mac');
  assert.equal(platformOf('MacIntel'), 'mac');
  assert.equal(platformOf('win'), 'windows');
  assert.equal(platformOf('linux'), 'linux');
  assert.equal(platformOf('cros'), 'linux');
});

const vp = { width: 1280, height: 720 };
const points = [
  [[0, 0], vp, { x: 0, y: 0 }],
  [[999, 999], vp, { x: 1279, y: 719 }],
  [[500, 500], vp, { x: 640.64, y: 360.36 }],
  [[250, 100], { width: 1000, height: 999 }, { x: 250.25, y: 100 }],
  [[999, 0], { width: 390, height: 844 }, { x: 389, y: 0 }],
];
for (const [pt, viewport, want] of points) {
  test(`point ${pt} in ${viewport.width}x${viewport.height} maps to ${want.x},${want.y}`, () => {
    assert.deepEqual(toCss(pt, viewport), want);
  });
}

test('absolute mode passes pixels through, clamped to the viewport', () => {
  assert.deepEqual(toCss([100, 200], vp, 'absolute'), { x: 100, y: 200 });
  assert.deepEqual(toCss([2000, 900], vp, 'absolute'), { x: 1279, y: 719 });
});

test('toNormalized inverts toCss within a pixel', () => {
  for (const [x, y] of [[380, 145], [0, 0], [1279, 719], [640, 360]]) {
    const c = toCss(toNormalized(x, y, vp), vp);
    assert.ok(Math.abs(c.x - x) <= 1.5 && Math.abs(c.y - y) <= 1.5, `${x},${y} -> ${c.x},${c.y}`);
  }
});

test('viewportFromMetrics reads the CSS visual viewport', async () => {
  const { viewportFromMetrics } = await import('../../../shared/core/cdp_input.js');
  const m = { cssVisualViewport: { clientWidth: 1280, clientHeight: 664.4, pageX: 0, pageY: 480 }, cssLayoutViewport: { clientWidth: 1265, clientHeight: 664 } };
  assert.deepEqual(viewportFromMetrics(m), { width: 1280, height: 664, pageX: 0, pageY: 480 });
  assert.deepEqual(viewportFromMetrics({ cssLayoutViewport: { clientWidth: 800, clientHeight: 600 } }), { width: 800, height: 600, pageX: 0, pageY: 0 });
});

test('on macOS, cmd+a / cmd+shift+z carry the editing command; elsewhere no commands', () => {
  assert.deepEqual(chordEvents(['cmd', 'a'], 'mac').events[1].commands, ['selectAll']);
  assert.deepEqual(chordEvents(['cmd', 'shift', 'z'], 'mac').events[2].commands, ['redo']);
  assert.equal(chordEvents(['ctrl', 'a'], 'linux').events[1].commands, undefined);
  assert.equal(chordEvents(['ctrl', 'a'], 'mac').events[1].commands, undefined);
});
