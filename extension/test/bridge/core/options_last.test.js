// The options page's "Last" line: the words for each report the worker keeps
// for a site, and which reports also show as an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CODES } from '../../../shared/core/codes.js';
import { lastEventIsError, lastEventParts, lastEventWhat, outcomeWords } from '../../../bridge/core/options_last.js';

test('each kind of report reads as what happened', () => {
  const table = [
    [{ kind: 'armed' }, 'armed'],
    [{ kind: 'stopped' }, 'stopped'],
    [{ kind: 'stopped', error: 'the tab closed' }, 'stopped — the tab closed'],
    [{ kind: 'executed', capability: 'fs_read', ok: true }, 'ran fs_read: ok'],
    [{ kind: 'executed', capability: 'fs_read', ok: false, code: 'FORBIDDEN' }, 'called fs_read: not allowed for this site, or you said no'],
    [{ kind: 'executed', capability: 'fs_read', ok: false, code: 'SOMETHING_NEW' }, 'called fs_read: failed'],
    [{ kind: 'delivered', stage: 'send' }, 'result delivered (send)'],
    [{ kind: 'delivered', stage: 'send', attached: 2 }, 'result delivered (send) with 2 images attached'],
    [{ kind: 'delivered', stage: 'send', attached: 0, missing: 'not attached: image 1 of 1 (computer.screenshot): the page showed no preview' },
      'result delivered (send), but not attached: image 1 of 1 (computer.screenshot): the page showed no preview'],
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
  assert.equal(lastEventIsError({ kind: 'executed', ok: false, code: 'FORBIDDEN' }), false);
  assert.equal(lastEventIsError({ kind: 'armed' }), false);
  assert.equal(lastEventIsError({ kind: 'delivered', stage: 'send', attached: 1 }), false);
  assert.equal(lastEventIsError({ kind: 'delivered', stage: 'send', missing: 'not attached: image 1 of 1' }), true, 'a result delivered without its image');
});

test('a capability name stands apart from the words around it, so the page can mark its boundaries', () => {
  assert.deepEqual(lastEventParts({ kind: 'executed', capability: 'computer.greet (structured)', ok: true }),
    ['ran ', { name: 'computer.greet (structured)' }, ': ok']);
  assert.deepEqual(lastEventParts({ kind: 'approval', capability: 'a.b c' }), ['waiting for your approval: ', { name: 'a.b c' }]);
  assert.deepEqual(lastEventParts({ kind: 'progress', capability: 'x.copy files', progress: 2, total: 4 }),
    ['running ', { name: 'x.copy files' }, ' — 50%']);
  assert.deepEqual(lastEventParts({ kind: 'progress', capability: 'x.y' }), ['running ', { name: 'x.y' }]);
});

test('every wire error code a call can end with reads as words, never as the code', () => {
  // The workspace's file codes and UNKNOWN_METHOD never answer an execute.
  const notFromExecute = new Set([CODES.UNKNOWN_METHOD, CODES.FILE_EXISTS, CODES.FILE_NOT_FOUND, CODES.FILE_TOO_LARGE]);
  for (const code of Object.values(CODES).filter((c) => !notFromExecute.has(c))) {
    const words = outcomeWords(false, code);
    assert.doesNotMatch(words, /[A-Z]{2,}_|^[A-Z_]+$/, code);
    assert.ok(words.length > 3, code);
  }
  assert.equal(outcomeWords(true, undefined), 'ok');
});
