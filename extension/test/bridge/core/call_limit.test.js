import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeLimitMs, EXECUTE_MARGIN_MS, HOST_CALL_TIMEOUT_MS } from '../../../bridge/core/call_limit.js';

test("an execute waits the host's own per-call limit plus a margin", () => {
  const cases = [
    ['the figure health reports', { callTimeoutMs: 300_000 }, 300_000 + EXECUTE_MARGIN_MS],
    ['an older host without the figure', { status: 'ok' }, HOST_CALL_TIMEOUT_MS + EXECUTE_MARGIN_MS],
    ['no health yet', null, HOST_CALL_TIMEOUT_MS + EXECUTE_MARGIN_MS],
    ['a figure that is not a positive number', { callTimeoutMs: 'soon' }, HOST_CALL_TIMEOUT_MS + EXECUTE_MARGIN_MS],
    ['zero', { callTimeoutMs: 0 }, HOST_CALL_TIMEOUT_MS + EXECUTE_MARGIN_MS],
  ];
  for (const [name, health, want] of cases) assert.equal(executeLimitMs(health), want, name);
});
