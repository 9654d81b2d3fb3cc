// The task pipeline's state machine (agent/core/task_machine.js), as a table:
// every state against every event, what it moves to and what it has done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INITIAL, isBusy, TASK_EFFECT as X, TASK_EVENT as E, TASK_STATE as S, transition } from '../../../agent/core/task_machine.js';

// [state, event, next state, effect]; every pair not listed leaves the machine as it is and does nothing.
const MOVES = [
  [S.IDLE, E.SUBMIT, S.STARTING],
  [S.STARTING, E.STARTED, S.RUNNING],
  [S.STARTING, E.STOP, S.STARTING, X.CANCEL_START],
  [S.RUNNING, E.PAUSE, S.PAUSING, X.PAUSE_RUN],
  [S.RUNNING, E.STOP, S.RUNNING, X.STOP_RUN],
  [S.RUNNING, E.ASKED, S.WAITING],
  [S.RUNNING, E.ENDED, S.IDLE],
  [S.PAUSING, E.PAUSED, S.PAUSED],
  [S.PAUSING, E.STOP, S.RUNNING, X.STOP_RUN],
  [S.PAUSING, E.ASKED, S.WAITING],
  [S.PAUSING, E.ENDED, S.IDLE],
  [S.PAUSED, E.RESUME, S.RUNNING, X.RESUME_RUN],
  [S.PAUSED, E.STOP, S.PAUSED, X.STOP_RUN],
  [S.PAUSED, E.ENDED, S.IDLE],
  [S.WAITING, E.SUBMIT, S.STARTING],
  [S.WAITING, E.STOP, S.WAITING, X.STOP_RUN],
  [S.WAITING, E.ENDED, S.IDLE],
  // Another conversation: whatever the state.
  ...Object.values(S).flatMap((st) => [[st, E.OPENED, S.IDLE], [st, E.RESTORED, S.WAITING]]),
];

test('every state against every event: the moves of the table, and nothing else', () => {
  const want = new Map(MOVES.map(([st, ev, to, effect]) => [`${st}/${ev}`, { to, effect }]));
  for (const st of Object.values(S)) {
    for (const ev of Object.values(E)) {
      if (ev === E.NOT_STARTED) continue; // below: it goes back where the submission came from
      const got = transition({ state: st, from: S.IDLE }, ev);
      const w = want.get(`${st}/${ev}`);
      if (!w) {
        assert.equal(got, null, `${st} + ${ev} does nothing`);
        continue;
      }
      assert.equal(got?.state, w.to, `${st} + ${ev}`);
      assert.equal(got.effect, w.effect, `${st} + ${ev}: effect`);
    }
  }
});

test('a submission that does not start goes back where it came from: an answer refused leaves the question waiting', () => {
  for (const from of [S.IDLE, S.WAITING]) {
    const starting = transition({ state: from, from: S.IDLE }, E.SUBMIT);
    assert.deepEqual(starting, { state: S.STARTING, from });
    assert.deepEqual(transition(starting, E.NOT_STARTED), { state: from, from });
    // Once it runs, a late "not started" (the start's promise settling when the run ends) changes nothing.
    assert.equal(transition(transition(starting, E.STARTED), E.NOT_STARTED), null);
  }
  for (const st of [S.IDLE, S.RUNNING, S.PAUSING, S.PAUSED, S.WAITING]) assert.equal(transition({ state: st, from: S.IDLE }, E.NOT_STARTED), null, st);
});

test('a whole task: start, pause, resume, a question, its answer, the end', () => {
  const events = [E.SUBMIT, E.STARTED, E.PAUSE, E.PAUSED, E.RESUME, E.ASKED, E.SUBMIT, E.STARTED, E.STOP, E.ENDED];
  const seen = [];
  let m = INITIAL;
  for (const ev of events) {
    m = transition(m, ev) || m;
    seen.push(m.effect ? `${m.state}!${m.effect}` : m.state);
  }
  assert.deepEqual(seen, [
    'starting', 'running', 'pausing!pauseRun', 'paused', 'running!resumeRun', 'waiting', 'starting', 'running', 'running!stopRun', 'idle',
  ]);
});

test('busy: starting, running, pausing and paused; the conversation may change when idle or waiting', () => {
  assert.deepEqual(Object.values(S).filter(isBusy), [S.STARTING, S.RUNNING, S.PAUSING, S.PAUSED]);
});
