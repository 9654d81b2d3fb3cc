// The host card's state (shared/core/host_card_state.js): when the live poll
// asks the host again, what a new view of the host does to an install under
// way, and the words of a failed download and of the report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  downloadFailed, downloadFailure, downloadStarted, initialCard, pollTick, reportSaid, viewSeen, withContext, withLocation,
} from '../../../shared/core/host_card_state.js';

const card = () => initialCard({ page: 'setup', extensionId: 'x', extensionVersion: '0.1.0', firefox: false });
const answers = { connected: true, answers: true, kind: 'ok' };
const down = { connected: false, answers: false, kind: 'down' };
const incompatible = { connected: false, answers: true, kind: 'incompatible' };

test('the live poll: asked again every 2 s while the host does not answer, every 5 s while an awaited update does not fit, else never', () => {
  const forced = (st, n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const t = pollTick(st);
      st = t.state;
      out.push(t.force ? 1 : 0);
    }
    return out.join('');
  };
  const cases = [
    ['no view yet', card(), '000000'],
    ['answering', { ...card(), view: answers }, '000000'],
    ['not answering', { ...card(), view: down }, '010101'],
    ['not fitting, no update fetched', { ...card(), view: incompatible }, '000000'],
    ['not fitting, its update fetched', { ...card(), view: incompatible, awaitingUpdate: true }, '0000100001'],
  ];
  for (const [what, st, want] of cases) assert.equal(forced(st, want.length), want, what);
});

test('a new view of the host: an install under way ends when it answers; a failed download\'s note goes; an awaited update ends when the host is gone', () => {
  const pkg = { file: 'gnosis-host.deb', url: 'https://r.example/gnosis-host.deb' };
  let st = downloadStarted(card(), { id: 7, pkg, isUpdate: false });
  assert.deepEqual([st.installing, st.noteTone], [{ id: 7, pkg }, 'info']);
  let seen = viewSeen(st, down);
  assert.equal(seen.note, null, 'still waiting');
  assert.deepEqual(seen.state.installing, { id: 7, pkg });
  seen = viewSeen(seen.state, answers);
  assert.equal(seen.note, 'installed');
  assert.deepEqual([seen.state.installing, seen.state.noteTone, seen.state.view], [null, 'ok', answers]);
  assert.equal(viewSeen(seen.state, answers).note, null, 'said once');
  // A failed download, then the host installed some other way.
  st = downloadFailed(downloadStarted(card(), { id: 8, pkg, isUpdate: false }));
  assert.deepEqual([st.installing, st.noteTone], [null, 'error']);
  assert.equal(viewSeen(st, down).note, null);
  seen = viewSeen(st, answers);
  assert.deepEqual([seen.note, seen.state.noteTone], ['clear', '']);
  // An update: awaited while the host does not fit, forgotten once it is gone.
  st = downloadStarted(card(), { id: 9, pkg, isUpdate: true });
  assert.equal(viewSeen(st, incompatible).state.awaitingUpdate, true);
  assert.equal(viewSeen(st, down).state.awaitingUpdate, false);
});

test('the system, the location, and the words of a failed download and of the report', () => {
  const st = withContext(card(), { info: { os: 'linux', arch: 'x86-64' }, installType: undefined, location: 'https://r.example/{version}/', isDefault: true });
  assert.deepEqual([st.info.os, st.installType, st.location, st.isDefault], ['linux', '', 'https://r.example/{version}/', true]);
  assert.deepEqual([withLocation(st, { location: 'https://m.example/', isDefault: false }).location, withLocation(st, { location: 'x', isDefault: false }).isDefault], ['https://m.example/', false]);
  const words = [
    ['SERVER_BAD_CONTENT', 'the server has no such file'], ['SERVER_FORBIDDEN', 'the server refused it'], ['SERVER_FAILED', 'the server failed'],
    ['NETWORK_TIMEOUT', 'the network failed'], ['FILE_NO_SPACE', 'the file could not be saved'], ['USER_CANCELED', 'it was cancelled'],
    ['CRASH', 'it did not finish'], [undefined, 'it did not finish'],
  ];
  for (const [reason, want] of words) assert.equal(downloadFailure(reason), want, reason);
  assert.equal(reportSaid({ hostIncluded: true }), 'Copied. Paste it into your bug report; secrets and argument values in it read [redacted].');
  assert.equal(reportSaid({ hostIncluded: false, copyError: 'Document is not focused.' }),
    'Could not copy it (Document is not focused.): select the text below and copy it. The host did not answer, so only the extension’s part is in it.');
});
