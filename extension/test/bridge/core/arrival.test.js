// Which reply is new (bridge/core/arrival.js): a reply runs only when the
// bridge saw it arrive — written in front of it, or after a message was sent
// — whatever the page does with its elements, routes and windows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as A from '../../../bridge/core/arrival.js';

const CALL = '{"capability":"computer.screenshot"}';

/**
 * Plays steps on the arrival rules. A step is
 *   ['start', key, text]            the bridge starts watching, the newest reply is key/text (key null: none)
 *   ['see', key, text, extra]       an observation (extra: {count, prevKey, followsMark}; prevKey 100 unless said)
 *   ['sent']                        a message is sent now (the newest reply is the last one seen)
 *   ['consumed']                    the worker took the current reply as a call
 * Returns the state after the steps.
 */
function play(steps) {
  let s = A.initial();
  let now = 0;
  let last = { key: null, text: '', count: 0 };
  for (const [what, key, text, extra] of steps) {
    now += 10;
    if (what === 'start') s = A.baseline(s, (last = { key, text, count: key === null ? 0 : 1, prevKey: 100 }));
    else if (what === 'see') s = A.observe(s, (last = { key, text, count: 2, prevKey: 100, followsMark: false, ...extra }), now);
    else if (what === 'sent') s = A.sent(s, last);
    else if (what === 'consumed') s = A.consumed(s);
  }
  return s;
}

/** Streams text into element key, a few characters at a time. */
const stream = (key, text, extra) => Array.from({ length: Math.ceil(text.length / 8) }, (_, i) => ['see', key, text.slice(0, (i + 1) * 8), extra]);

test('what arrives and what does not', () => {
  const cases = [
    // [name, steps, arrived?, why when not]
    ['the reply on the page when the bridge starts', [['start', 1, CALL]], false, A.WHY.BASELINE],
    ['a reply streamed in front of the bridge', [['start', null, ''], ...stream(2, CALL)], true],
    ['a reply streamed into a new element after a sent message', [['start', 1, CALL], ['sent'], ...stream(2, CALL, { followsMark: true })], true],
    ['the same call again after the bridge sent the result (a 15-message window: the count stays)',
      [['start', null, ''], ...stream(1, CALL), ['consumed'], ['sent'], ['see', 2, CALL, { count: 15, followsMark: true }]], true],
    ['a reply rendered complete at once after a sent message', [['start', 1, 'Hello'], ['sent'], ['see', 2, CALL, { followsMark: true }]], true],
    ['the first reply of a new conversation, rendered at once', [['start', null, ''], ['sent'], ['see', 5, CALL, { count: 1 }]], true],
    ['an element emptied and written again after a sent message', [['start', 1, CALL], ['sent'], ['see', 1, ''], ...stream(1, CALL)], true],
    ['an old reply scrolled into view (a virtualised list mounts it again)', [['start', 1, 'Hi'], ['see', 9, CALL]], false, A.WHY.SHOWN],
    ['an old reply above the last sent message comes into view', [['start', 1, 'Hi'], ['sent'], ['see', 9, CALL, { followsMark: false }]], false, A.WHY.SHOWN],
    ['a conversation switched to in place', [['start', 1, 'Hi'], ['see', null, ''], ['see', 7, CALL]], false, A.WHY.SHOWN],
    ['the old reply remounted with the same text', [['start', 1, CALL], ['see', 2, CALL]], false, A.WHY.BASELINE],
    ['a conversation switched to whose newest reply has the same text (other replies before it)',
      [['start', null, ''], ...stream(2, CALL), ['consumed'], ['see', 8, CALL, { prevKey: 7 }]], false, A.WHY.SHOWN],
  ];
  for (const [name, steps, arrived, why] of cases) {
    const { reply } = play(steps);
    assert.equal(reply.arrived, arrived, name);
    if (!arrived) assert.equal(reply.why, why, name);
  }
});

test('a reply keeps its id while it streams and when the site remounts it with the same text', () => {
  const streamed = play([['start', null, ''], ...stream(2, CALL)]);
  const remounted = play([['start', null, ''], ...stream(2, CALL), ['see', 3, CALL]]);
  assert.equal(remounted.reply.id, streamed.reply.id);
  assert.equal(remounted.reply.arrived, true);
  assert.equal(remounted.reply.key, 3);
});

test('after the call ran, its element swapped or shown again is not a new arrival', () => {
  const s = play([['start', null, ''], ...stream(2, CALL), ['consumed'], ['see', 3, CALL]]);
  assert.equal(s.reply.arrived, true);
  assert.equal(s.reply.id, play([['start', null, ''], ...stream(2, CALL)]).reply.id, 'the same reply');
});

test('a new reply after a sent message gets a new id even with the same text', () => {
  const first = play([['start', null, ''], ...stream(2, CALL), ['consumed']]);
  const second = play([['start', null, ''], ...stream(2, CALL), ['consumed'], ['sent'], ['see', 3, CALL, { followsMark: true }]]);
  assert.equal(second.reply.id, first.reply.id + 1);
  assert.equal(second.reply.arrived, true);
  assert.equal(second.reply.by, 'sent');
});

test('an empty page and a page that empties keep the last reply until another shows', () => {
  const s = play([['start', null, ''], ...stream(2, CALL), ['see', null, '']]);
  assert.equal(s.last, null);
  assert.equal(s.reply.key, 2);
});

test('a reply written over the element of one that ran is new, even when its first sight is not empty', () => {
  const ran = play([['start', null, ''], ...stream(2, CALL), ['consumed']]);
  const over = play([['start', null, ''], ...stream(2, CALL), ['consumed'], ['sent'], ['see', 2, '{"ca'], ...stream(2, CALL).slice(1)]);
  assert.equal(over.reply.id, ran.reply.id + 1);
  assert.equal(over.reply.arrived, true);
  const rerendered = play([['start', null, ''], ...stream(2, '```json\n' + CALL + '\n```'), ['see', 2, CALL]]);
  assert.equal(rerendered.reply.id, play([['start', null, ''], ...stream(2, '```json\n' + CALL + '\n```')]).reply.id, 'a reply not yet taken, rendered anew, is the same reply');
});
