// When a reply is handed over (bridge/core/reaction.js): as soon as the
// site's indicator has gone and the reply held still for GRACE_MS; without an
// indicator (or one that never showed) after the quiet time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as R from '../../../bridge/core/reaction.js';


test('the decision at each moment', () => {
  const base = { now: 10_000, changedAt: 10_000, indicator: 'none', sawIndicator: false, goneAt: 0, quietMs: 800 };
  const cases = [
    // [name, state, want]
    ['no indicator: wait out the quiet time', {}, { act: false, waitMs: 800 }],
    ['no indicator: quiet long enough', { now: 10_800 }, { act: true, path: 'quiet' }],
    ['the indicator shows: look again soon', { indicator: 'visible', sawIndicator: true, now: 20_000 }, { act: false, waitMs: R.POLL_MS }],
    ['the indicator just went away: the grace', { indicator: 'hidden', sawIndicator: true, goneAt: 10_000, now: 10_020 }, { act: false, waitMs: R.GRACE_MS - 20 }],
    ['gone and still for the grace', { indicator: 'hidden', sawIndicator: true, goneAt: 10_000, now: 10_000 + R.GRACE_MS }, { act: true, path: 'indicator' }],
    ['gone, but the reply changed since', { indicator: 'hidden', sawIndicator: true, goneAt: 9_000, changedAt: 10_050, now: 10_100 }, { act: false, waitMs: R.GRACE_MS - 50 }],
    ['an indicator that never showed for this reply: the quiet time', { indicator: 'hidden', sawIndicator: false, now: 10_100 }, { act: false, waitMs: 700 }],
  ];
  for (const [name, over, want] of cases) assert.deepEqual(R.decide({ ...base, ...over }), want, name);
});

test('the indicator path is well under the default quiet time', () => {
  assert.ok(R.GRACE_MS + R.POLL_MS <= 200, 'the budget for a 250 ms reaction');
});
