import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollWhileVisible } from '../../../shared/core/poll.js';

/** A page's document whose visibility the test sets, and a clock whose intervals the test fires. */
function fakePage(visibilityState = 'visible') {
  const listeners = [];
  const doc = {
    visibilityState,
    addEventListener: (type, fn) => { if (type === 'visibilitychange') listeners.push(fn); },
    show(state) { this.visibilityState = state; for (const fn of listeners) fn(); },
  };
  const intervals = new Map();
  let next = 1;
  const timers = {
    setInterval: (fn, ms) => { intervals.set(next, { fn, ms }); return next++; },
    clearInterval: (id) => { intervals.delete(id); },
  };
  const tick = () => { for (const { fn } of [...intervals.values()]) fn(); };
  return { doc, timers, intervals, tick };
}

test('a visible page asks every round, the first one after the interval', () => {
  const page = fakePage();
  let asked = 0;
  pollWhileVisible(() => { asked++; }, 1000, page);
  assert.equal(asked, 0);
  assert.deepEqual([...page.intervals.values()].map((i) => i.ms), [1000]);
  page.tick();
  page.tick();
  assert.equal(asked, 2);
});

test('a hidden page asks nothing, and asks at once when shown again', () => {
  const page = fakePage();
  let asked = 0;
  pollWhileVisible(() => { asked++; }, 1000, page);
  page.doc.show('hidden');
  assert.equal(page.intervals.size, 0, 'no timer while hidden');
  page.tick();
  assert.equal(asked, 0);
  page.doc.show('visible');
  assert.equal(asked, 1, 'shown again: asked at once');
  assert.equal(page.intervals.size, 1);
  page.tick();
  assert.equal(asked, 2);
});

test('a page opened in the background starts asking when first shown', () => {
  const page = fakePage('hidden');
  let asked = 0;
  pollWhileVisible(() => { asked++; }, 1000, page);
  assert.equal(page.intervals.size, 0);
  page.doc.show('visible');
  assert.equal(asked, 1);
  assert.equal(page.intervals.size, 1);
});

test('turned on later it asks at once; turned off it stops; a hidden page waits to be shown', () => {
  const page = fakePage();
  let asked = 0;
  const setEnabled = pollWhileVisible(() => { asked++; }, 1500, { ...page, enabled: false });
  assert.equal(page.intervals.size, 0, 'off from the start');
  page.doc.show('hidden');
  page.doc.show('visible');
  assert.equal(asked, 0, 'shown while off: nothing asked');
  setEnabled(true);
  assert.equal(asked, 1);
  setEnabled(true);
  assert.equal(asked, 1, 'on again changes nothing');
  setEnabled(false);
  assert.equal(page.intervals.size, 0);
  page.doc.show('hidden');
  setEnabled(true);
  assert.equal(asked, 1, 'on while hidden: nothing yet');
  assert.equal(page.intervals.size, 0);
  page.doc.show('visible');
  assert.equal(asked, 2);
});

test('a refresh that throws or rejects leaves the polling going', async () => {
  const page = fakePage();
  let asked = 0;
  const failures = [() => { throw new Error('sync'); }, () => Promise.reject(new Error('async'))];
  pollWhileVisible(() => { asked++; return failures[(asked - 1) % 2](); }, 1000, page);
  page.tick();
  page.tick();
  await new Promise((r) => setImmediate(r));
  assert.equal(asked, 2);
  assert.equal(page.intervals.size, 1);
});
