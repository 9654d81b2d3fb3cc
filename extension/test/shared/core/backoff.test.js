import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cappedExponential } from '../../../shared/core/backoff.js';

test('cappedExponential doubles from the base per attempt and stops at the cap', () => {
  const table = [
    [1, 500], [2, 1000], [3, 2000], [6, 16000], [7, 30000], [1000, 30000], [0, 500],
  ];
  for (const [attempt, want] of table) assert.equal(cappedExponential(attempt, 500, 30000), want, `attempt ${attempt}`);
});
