// The words the pages use for a call's progress and a retry's countdown: one
// pure function each, so the options page, the badge and the side panel agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressPercent, progressText, retryText } from '../../../shared/core/ui.js';
import { progressBadge } from '../../../bridge/core/badge.js';

test('progress reads as percent and message, or as a count without a total', () => {
  assert.equal(progressText('computer.copy', { progress: 2, total: 5, message: 'copying files' }), 'running computer.copy — 40% · copying files');
  assert.equal(progressText('computer.copy', { progress: 3 }), 'running computer.copy — 3 done');
  assert.equal(progressText('computer.copy', { progress: 0.5, total: 0 }), 'running computer.copy — 0.5 done');
  assert.equal(progressText('computer.copy'), 'running computer.copy');
  assert.equal(progressPercent({ progress: 12, total: 10 }), 100);
  assert.equal(progressPercent({ progress: 1 }), null);
});

test('the badge shows the percentage and the progress line as its title', () => {
  assert.deepEqual(progressBadge('computer.copy', { progress: 1, total: 4, message: 'x' }), { text: '25%', color: '#0969da', title: 'Gnosis: running computer.copy — 25% · x' });
  assert.equal(progressBadge('computer.copy', { progress: 1 }).text, '…');
});

test('a retry counts down to its next attempt', () => {
  const r = { reason: 'HTTP 503', attempt: 1, until: 10_000 };
  assert.equal(retryText(r, 6_100), 'HTTP 503 — retrying in 4 s (attempt 2)');
  assert.equal(retryText(r, 10_000), 'HTTP 503 — retrying now (attempt 2)');
});
