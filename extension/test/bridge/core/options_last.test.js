// The options page's "Last" line: the words for each report the worker keeps
// for a site, and which reports also show as an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastEventIsError, lastEventWhat } from '../../../bridge/core/options_last.js';

test('each kind of report reads as what happened', () => {
  const table = [
    [{ kind: 'armed' }, 'armed'],
    [{ kind: 'stopped' }, 'stopped'],
    [{ kind: 'stopped', error: 'the tab closed' }, 'stopped — the tab closed'],
    [{ kind: 'executed', capability: 'fs_read', ok: true }, 'ran fs_read: ok'],
    [{ kind: 'executed', capability: 'fs_read', ok: false, code: 'denied' }, 'ran fs_read: denied'],
    [{ kind: 'delivered', stage: 'send' }, 'result delivered (send)'],
    [{ kind: 'failed', stage: 'inject', error: 'no input' }, 'failed at inject: no input'],
    [{ kind: 'failed', stage: 'preset', error: 'the site changed' }, 'the site changed'],
    [{ kind: 'failed', stage: 'interrupted', error: 'the worker stopped' }, 'interrupted: the worker stopped'],
    [{ kind: 'skipped', capability: 'fs_read', reason: 'it already ran' }, 'did not run fs_read: it already ran'],
    [{ kind: 'approval', capability: 'shell' }, 'waiting for your approval: shell'],
    [{ kind: 'progress', capability: 'build', progress: 1, total: 4, message: 'compiling' }, 'running build — 25% · compiling'],
    [{ kind: 'something-new' }, 'something-new'],
  ];
  for (const [last, want] of table) assert.equal(lastEventWhat(last), want, JSON.stringify(last));
});

test('a failure or a stop with a reason is an error; other reports are not', () => {
  assert.equal(lastEventIsError({ kind: 'failed', stage: 'inject', error: 'x' }), true);
  assert.equal(lastEventIsError({ kind: 'stopped', error: 'x' }), true);
  assert.equal(lastEventIsError({ kind: 'stopped' }), false);
  assert.equal(lastEventIsError({ kind: 'executed', ok: false, code: 'denied' }), false);
  assert.equal(lastEventIsError({ kind: 'armed' }), false);
});
