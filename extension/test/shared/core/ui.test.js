// The words the pages use for the host's state, a call's progress and a retry's
// countdown: one pure function each, so the options page, the badge and the
// side panel agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowCommand, hostView, progressPercent, progressText, retryText } from '../../../shared/core/ui.js';
import { progressBadge } from '../../../bridge/core/badge.js';

const ready = { name: 'munim', prefix: 'computer', state: 'ready', capabilities: 15 };

test('every provider ready is connected, in green', () => {
  const v = hostView({ health: { ok: true, status: 'ok', providers: [ready] } });
  assert.deepEqual([v.kind, v.chip, v.line, v.connected, v.problem, v.startBlocked], ['connected', 'Connected', 'Connected — all providers ready', true, null, '']);
});

test('a provider still starting is degraded and says so, never "ready"', () => {
  const v = hostView({ health: { ok: true, status: 'degraded', providers: [{ ...ready, state: 'starting' }] } });
  assert.equal(v.kind, 'degraded');
  assert.equal(v.chip, 'Starting munim…');
  assert.equal(v.problem, null);
});

test("a provider that is down shows the server's reason, its stderr and the fix", () => {
  const down = {
    ...ready, state: 'down', capabilities: 0,
    error: 'starting /nope/munim.exe: fork/exec /nope/munim.exe: no such file or directory',
    stderr: 'line one\nline two',
  };
  const v = hostView({ health: { ok: true, status: 'degraded', providers: [down] } });
  assert.equal(v.kind, 'degraded');
  assert.equal(v.chip, 'munim down');
  assert.equal(v.problem.title, 'munim could not start');
  assert.match(v.problem.reason, /no such file or directory/);
  assert.equal(v.problem.stderr, 'line one\nline two');
  assert.match(v.problem.fix, /gnosis-host doctor/);
  assert.match(v.problem.command, /gnosis-host install --munim/);
  assert.doesNotMatch(v.line, /starting/);
});

test('a configuration error is a problem even with no provider down', () => {
  const v = hostView({ health: { ok: true, status: 'degraded', error: 'config: invalid JSON', providers: [] } });
  assert.equal(v.problem.reason, 'config: invalid JSON');
});

test('not connected: Start is blocked with the reason, the advice is the transport\'s', () => {
  const v = hostView({ error: { code: 'HOST_NOT_FOUND', message: 'Specified native messaging host not found.', advice: 'Install it.' } });
  assert.deepEqual([v.kind, v.connected, v.line, v.advice], ['down', false, 'Not connected (HOST_NOT_FOUND): Specified native messaging host not found.', 'Install it.']);
  assert.match(v.startBlocked, /not connected/);
});

test('FORBIDDEN names the extension id and the exact command', () => {
  const v = hostView({ error: { code: 'HOST_FORBIDDEN', message: 'Access to the specified native messaging host is forbidden.' } }, { extensionId: 'abcdefghijklmnopabcdefghijklmnop' });
  assert.match(v.advice, /id abcdefghijklmnopabcdefghijklmnop/);
  assert.match(v.advice, /allowed_origins/);
  assert.equal(v.command, 'gnosis-host install --extension-id abcdefghijklmnopabcdefghijklmnop');
  assert.equal(allowCommand('x'), 'gnosis-host install --extension-id x');
});

test('nothing known yet is "checking", and Start waits', () => {
  const v = hostView({ status: { state: 'idle' }, health: null, error: null });
  assert.equal(v.kind, 'checking');
  assert.ok(v.startBlocked);
});

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
