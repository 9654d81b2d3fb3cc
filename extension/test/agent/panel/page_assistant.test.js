// The Page Assistant's pure parts: the bar's state machine (idle → running
// with step summaries → result card or notice, input restored; no input while
// something covers the bar), summary
// truncation, the visibility rule, and the panel-side relay that decides which
// tab's bar follows a run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as S from '../../../agent/core/page_assistant_state.js';
import { createPageRelay, pageEvent, DELTA_MAX } from '../../../agent/panel/page_assistant_panel.js';
import { validateTask } from '../../../agent/core/config_validation.js';

/** Applies events in order from the initial state. */
const run = (events, from = S.initialState()) => events.reduce((s, e) => S.reduce(s, e), from);
const ready = [{ type: 'settings', enabled: true }, { type: 'panel', open: true }, { type: 'visibility', visible: true, at: 0 }];
/** A submit long after the bar was uncovered. */
const SUBMIT = { type: 'submit', at: 10_000 };

test('visibility: the bar shows only while the setting is on and a panel is open in the window', () => {
  const cases = [
    [[], false],
    [[{ type: 'settings', enabled: true }], false],
    [[{ type: 'panel', open: true }], false],
    [ready, true],
    [[...ready, { type: 'panel', open: false }], false],
    [[...ready, { type: 'panel', open: false }, { type: 'panel', open: true }], true],
    [[...ready, { type: 'settings', enabled: false }], false],
    [[...ready, { type: 'settings', enabled: false }, { type: 'settings', enabled: true }], true],
  ];
  for (const [events, visible] of cases) {
    assert.equal(S.view(run(events)).visible, visible, JSON.stringify(events));
  }
});

test('while something covers the bar it takes no input; a submit counts only once it has been uncovered for a while', () => {
  const shown = [{ type: 'settings', enabled: true }, { type: 'panel', open: true }];
  const unknown = run(shown);
  assert.equal(S.view(unknown).locked, true, 'locked until the first visibility report');
  assert.equal(S.view(unknown).guard, S.COVERED_MESSAGE);
  const refused = S.reduce(unknown, SUBMIT);
  assert.equal(refused.phase, 'idle', 'no visibility report yet: refused');
  assert.equal(refused.message, S.REFUSED_MESSAGE);

  const clear = run([{ type: 'visibility', visible: true, at: 1000 }], unknown);
  assert.equal(S.view(clear).locked, false);
  assert.equal(S.view(clear).guard, '');
  assert.equal(S.reduce(clear, { type: 'submit', at: 1000 + S.MIN_SHOWN_MS - 1 }).phase, 'idle', 'uncovered too recently');
  assert.equal(S.reduce(clear, { type: 'submit' }).phase, 'idle', 'a submit without a time is refused');
  assert.equal(S.reduce(clear, { type: 'submit', at: 1000 + S.MIN_SHOWN_MS }).phase, 'pending');
  // Later reports of "still visible" do not restart the clock.
  const still = run([{ type: 'visibility', visible: true, at: 1400 }], clear);
  assert.equal(still, clear);

  const covered = run([{ type: 'visibility', visible: false, at: 5000 }], clear);
  assert.equal(S.view(covered).locked, true);
  assert.equal(S.view(covered).guard, S.COVERED_MESSAGE);
  assert.equal(S.reduce(covered, { type: 'submit', at: 9000 }).phase, 'idle');
  const uncovered = run([{ type: 'visibility', visible: true, at: 9000 }], covered);
  assert.equal(S.reduce(uncovered, { type: 'submit', at: 9100 }).phase, 'idle', 'just uncovered');
  assert.equal(S.reduce(uncovered, { type: 'submit', at: 9000 + S.MIN_SHOWN_MS }).phase, 'pending');

  // Stop is never locked: covering the bar mid-run does not keep the user from stopping.
  const running = run([{ type: 'submit', at: 20_000 }, { type: 'attached' }, { type: 'visibility', visible: false, at: 20_100 }], uncovered);
  assert.equal(S.view(running).showStop, true);
  assert.equal(S.reduce(running, { type: 'stop' }).stopping, true);
});

test('a submit is ignored while hidden or already busy', () => {
  const hidden = run([{ type: 'settings', enabled: true }]);
  assert.equal(S.reduce(hidden, SUBMIT), hidden);
  const pending = run([...ready, SUBMIT]);
  assert.equal(pending.phase, 'pending');
  assert.equal(S.reduce(pending, SUBMIT), pending);
});

test('a run: pending → running with the current step\'s summary → result card with the input back', () => {
  const steps = [
    [SUBMIT, { phase: 'pending', showInput: false, showStop: false, status: 'Starting…', summary: '' }],
    [{ type: 'stop' }, { phase: 'pending', stopDisabled: false }],
    [{ type: 'attached' }, { phase: 'running', status: 'Starting…', showStop: true }],
    [{ type: 'step', step: 1, phase: 'observe' }, { status: 'Step 1: taking a screenshot…', summary: '' }],
    [{ type: 'step', step: 1, phase: 'request' }, { status: 'Step 1: thinking…' }],
    [{ type: 'delta', step: 1, text: '<think>I see a but' }, { summary: 'I see a but' }],
    [{ type: 'delta', step: 1, text: '<think>I see a button.</think>\n<act' }, { summary: 'I see a button.' }],
    [{ type: 'action', step: 1, think: 'I see a button.', actionText: 'Click(point=(1,2))' }, { summary: 'I see a button.' }],
    [{ type: 'step', step: 1, phase: 'act' }, { status: 'Step 1: acting…', summary: 'I see a button.' }],
    [{ type: 'step', step: 2, phase: 'observe' }, { status: 'Step 2: taking a screenshot…', summary: '' }],
    [{ type: 'retry', step: 2, reason: 'HTTP 503', attempt: 1, until: 0 }, { status: 'Retrying now — HTTP 503 (attempt 2)', retrying: true, showStop: true }],
    [{ type: 'delta', step: 2, text: 'Done now <action>Fin' }, { status: 'Step 2: thinking…', summary: 'Done now' }],
    [{ type: 'end', outcome: 'finished', answer: '42' }, { phase: 'idle', showInput: true, showStop: false, status: '', summary: '', card: { kind: 'result', outcome: 'finished', title: 'Finished', text: '42' } }],
    [{ type: 'dismiss' }, { card: null, showInput: true }],
  ];
  let s = run(ready);
  for (const [event, want] of steps) {
    s = S.reduce(s, event);
    const got = { phase: s.phase, ...S.view(s) };
    for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k], v, `${JSON.stringify(event)}: ${k}`);
  }
});

test('outcomes: Finished and CallUser leave result cards, the rest notices; CallUser makes the next submit a reply', () => {
  const cases = [
    [{ outcome: 'finished', answer: '' }, { kind: 'result', outcome: 'finished', title: 'Finished', text: '(no answer given)' }, false],
    [{ outcome: 'call_user', question: 'Which one?' }, { kind: 'result', outcome: 'call_user', title: 'The agent asks', text: 'Which one?' }, true],
    [{ outcome: 'stopped' }, { kind: 'notice', outcome: 'stopped', title: 'Stopped', text: '' }, false],
    [{ outcome: 'step_limit', error: 'stopped after the step limit of 3' }, { kind: 'notice', outcome: 'step_limit', title: 'Stopped', text: 'stopped after the step limit of 3' }, false],
    [{ outcome: 'error', error: 'boom' }, { kind: 'notice', outcome: 'error', title: 'Error', text: 'boom' }, false],
  ];
  for (const [end, card, awaiting] of cases) {
    const s = run([...ready, SUBMIT, { type: 'attached' }, { type: 'end', ...end }]);
    assert.deepEqual(s.card, card, end.outcome);
    assert.equal(s.awaitingReply, awaiting, end.outcome);
    assert.equal(S.view(s).showInput, true, `${end.outcome}: input restored`);
    assert.equal(S.submission(s, ' blue ').reply, awaiting, end.outcome);
    assert.equal(S.view(s).placeholder.startsWith('Answer'), awaiting, end.outcome);
  }
});

test('a reply runs and clears the question state once the run moves', () => {
  const asked = run([...ready, SUBMIT, { type: 'end', outcome: 'call_user', question: 'Which?' }]);
  assert.deepEqual(S.submission(asked, 'blue'), { type: 'agent.pageTask', task: 'blue', reply: true, surface: 'tab' });
  const replying = run([SUBMIT, { type: 'attached' }], asked);
  assert.equal(replying.awaitingReply, false);
  assert.equal(replying.card, null);
});

test('blocked and error messages restore the input and show the panel\'s text', () => {
  const v = validateTask({ task: 'x', settings: { apiUrl: '' } });
  const s = run([...ready, SUBMIT, { type: 'blocked', code: v.code, message: v.message }]);
  assert.equal(s.phase, 'idle');
  assert.equal(S.view(s).message, 'Set the API URL in Settings: the API URL is empty.');
  assert.equal(S.view(s).showInput, true);
  const e = run([...ready, SUBMIT, { type: 'attached' }, { type: 'error', message: 'Could not run the task: x' }]);
  assert.equal(S.view(e).message, 'Could not run the task: x');
  assert.equal(S.view(e).showStop, false);
  // A new submit clears the message.
  assert.equal(S.view(S.reduce(e, SUBMIT)).message, '');
});

test('closing the panel during a run ends it on the page (the loop lived in the panel) and hides the bar', () => {
  const s = run([...ready, SUBMIT, { type: 'attached' }, { type: 'step', step: 3, phase: 'request' }, { type: 'panel', open: false }]);
  assert.equal(s.phase, 'idle');
  assert.equal(S.view(s).visible, false);
  assert.match(s.message, /side panel was closed/);
  const back = S.reduce(s, { type: 'panel', open: true });
  assert.equal(S.view(back).visible, true);
  assert.equal(S.view(back).showInput, true);
});

test('Stop marks the run as stopping until its end arrives; it is ignored when idle', () => {
  const idle = run(ready);
  assert.equal(S.reduce(idle, { type: 'stop' }), idle);
  const s = run([...ready, SUBMIT, { type: 'step', step: 1, phase: 'request' }, { type: 'stop' }]);
  assert.equal(S.view(s).stopDisabled, true);
  assert.equal(S.view(s).status, 'Stopping…');
  const end = S.reduce(s, { type: 'end', outcome: 'stopped' });
  assert.equal(end.stopping, false);
  assert.equal(S.view(end).showInput, true);
});

test('a task waiting for the person\'s answer in the side panel (the desktop\'s grants) says where the question is, then goes on', () => {
  const asking = run([...ready, SUBMIT, { type: 'step', step: 2, phase: 'act' }, { type: 'step', step: 2, phase: S.ASKING }]);
  assert.equal(S.view(asking).status, 'Waiting for your answer in the side panel…');
  assert.equal(S.view(run([...ready, SUBMIT, { type: 'step', step: 0, phase: S.ASKING }])).status, 'Waiting for your answer in the side panel…');
  assert.equal(S.view(S.reduce(asking, { type: 'step', step: 2, phase: 'act' })).status, 'Step 2: acting…');
  assert.equal(S.view(S.reduce(asking, { type: 'stop' })).status, 'Stopping…');
});

test('a retry shows its reason and a countdown to the next attempt, with Stop, until the run moves on', () => {
  const t0 = 1_000_000;
  const retry = { type: 'retry', step: 2, reason: 'HTTP 503', attempt: 1, until: t0 + 3000 };
  const s = run([...ready, SUBMIT, { type: 'attached' }, { type: 'step', step: 2, phase: 'request' }, retry]);
  assert.deepEqual(s.retry, { reason: 'HTTP 503', attempt: 1, until: t0 + 3000 });
  const cases = [
    [t0, 'Retrying in 3s — HTTP 503 (attempt 2)'],
    [t0 + 1, 'Retrying in 3s — HTTP 503 (attempt 2)'],
    [t0 + 1001, 'Retrying in 2s — HTTP 503 (attempt 2)'],
    [t0 + 2999, 'Retrying in 1s — HTTP 503 (attempt 2)'],
    [t0 + 3000, 'Retrying now — HTTP 503 (attempt 2)'],
    [t0 + 60_000, 'Retrying now — HTTP 503 (attempt 2)'],
  ];
  for (const [now, status] of cases) {
    const v = S.view(s, now);
    assert.equal(v.status, status, `at +${now - t0} ms`);
    assert.equal(v.retrying, true);
    assert.equal(v.showStop, true, 'Stop stays available while waiting');
    assert.equal(v.stopDisabled, false);
    assert.equal(v.showInput, false);
  }
  assert.match(S.view(s, t0).summary, /^Step 2: the model request failed/, 'the text says what is waited for when nothing was streamed');

  // A second failure replaces the first; a long reason is cut to one line's worth.
  const again = S.reduce(s, { type: 'retry', step: 2, reason: `HTTP 429: ${'slow down '.repeat(40)}`, attempt: 2, until: t0 + 10_000 });
  assert.equal(again.retry.attempt, 2);
  assert.equal(again.retry.reason.length, S.REASON_MAX);
  assert.match(S.view(again, t0).status, /^Retrying in 10s — HTTP 429: slow down .*… \(attempt 3\)$/);

  // Stopping wins over the countdown; the stop's end clears it.
  const stopping = S.reduce(s, { type: 'stop' });
  assert.equal(S.view(stopping, t0).status, 'Stopping…');
  assert.equal(S.view(stopping, t0).retrying, false);
  assert.equal(S.reduce(stopping, { type: 'end', outcome: 'stopped' }).retry, null);

  // The retried request got through: any run event ends the countdown.
  for (const e of [{ type: 'delta', step: 2, text: '<think>ok' }, { type: 'step', step: 2, phase: 'act' }, { type: 'action', step: 2, think: 'ok' },
    { type: 'end', outcome: 'finished', answer: 'a' }, { type: 'error', message: 'x' }]) {
    const next = S.reduce(s, e);
    assert.equal(next.retry, null, e.type);
    assert.equal(S.view(next, t0).retrying, false, e.type);
    assert.doesNotMatch(S.view(next, t0).status, /Retrying/, e.type);
  }
  // The panel closing ends it too.
  assert.equal(S.reduce(s, { type: 'panel', open: false }).retry, null);

  // A bar loaded during the wait (the agent navigated) joins the countdown.
  const joined = S.reduce(run(ready), retry);
  assert.equal(joined.phase, 'running');
  assert.equal(S.view(joined, t0).status, 'Retrying in 3s — HTTP 503 (attempt 2)');
  // An event without the details still reads as a retry.
  assert.equal(S.view(S.reduce(run(ready), { type: 'retry', step: 1 }), 0).status, 'Retrying now — the model request failed (attempt 2)');
});

test('a bar reloaded mid-run (the agent navigated) picks the run up from the next relayed event', () => {
  const cases = [
    [{ type: 'attached' }, 'Starting…'],
    [{ type: 'step', step: 3, phase: 'observe' }, 'Step 3: taking a screenshot…'],
    [{ type: 'delta', step: 3, text: '<think>next' }, 'Step 3: thinking…'],
    [{ type: 'action', step: 3, think: 'next' }, 'Step 3: working…'],
  ];
  const finished = run([...ready, SUBMIT, { type: 'end', outcome: 'finished', answer: 'a' }]);
  for (const [e, status] of cases) {
    for (const from of [run(ready), finished]) {
      const s = S.reduce(from, e);
      assert.equal(s.phase, 'running', e.type);
      assert.equal(s.card, null, e.type);
      assert.equal(S.view(s).status, status, e.type);
      assert.equal(S.view(s).showStop, true, e.type);
    }
  }
  const idle = run(ready);
  assert.equal(S.reduce(idle, { type: 'unknown' }), idle);
  assert.equal(S.reduce(idle, null), idle);
});

test('turning the setting off resets everything but the panel state', () => {
  const s = run([...ready, SUBMIT, { type: 'end', outcome: 'finished', answer: 'a' }, { type: 'settings', enabled: false }]);
  assert.deepEqual(s, { ...S.initialState(), panelOpen: true, shownSince: 0 });
});

test('thinkingOf takes the think body, or what precedes the action, without half-streamed tags', () => {
  const cases = [
    ['<think>abc</think><action>Click()</action>', 'abc'],
    ['<think>abc', 'abc'],
    ['<think>abc</thi', 'abc'],
    ['plain reasoning <action>Wait()</action>', 'plain reasoning '],
    ['plain reasoning <act', 'plain reasoning '],
    ['<', ''],
    ['<t', ''],
    ['<thin', ''],
    ['<think>', ''],
    ['', ''],
  ];
  for (const [input, want] of cases) assert.equal(S.thinkingOf(input), want, input);
});

test('summaries are whitespace-collapsed and truncated: the stream keeps its tail, a finished thought its head', () => {
  const long = `${'a'.repeat(200)} ${'b'.repeat(200)}`;
  const tail = S.truncateTail(long);
  assert.equal(tail.length, S.SUMMARY_MAX);
  assert.ok(tail.startsWith('…') && tail.endsWith('b'));
  const head = S.truncateHead(long);
  assert.equal(head.length, S.SUMMARY_MAX);
  assert.ok(head.startsWith('a') && head.endsWith('…'));
  assert.equal(S.truncateTail('  one\n\n two  '), 'one two');
  assert.equal(S.truncateHead('x'.repeat(S.SUMMARY_MAX)), 'x'.repeat(S.SUMMARY_MAX));
  const s = run([...ready, SUBMIT, { type: 'delta', step: 1, text: `<think>${long}` }]);
  assert.equal(s.summary, tail);
});

test('pageEvent trims session events to what the bar draws', () => {
  const big = 'x'.repeat(DELTA_MAX + 10);
  const cases = [
    [{ type: 'attached', target: { tabId: 1, url: 'https://a/' } }, { type: 'attached' }],
    [{ type: 'step', step: 2, phase: 'act', extra: 1 }, { type: 'step', step: 2, phase: 'act' }],
    [{ type: 'delta', step: 1, text: big }, { type: 'delta', step: 1, text: big.slice(-DELTA_MAX) }],
    [{ type: 'action', step: 1, think: 't', action: { name: 'Wait' }, actionText: 'Wait()' }, { type: 'action', step: 1, think: 't', actionText: 'Wait()' }],
    [{ type: 'retry', step: 4, reason: 'HTTP 503', attempt: 2, delayMs: 3000 }, { type: 'retry', step: 4, reason: 'HTTP 503', attempt: 2, until: 1_003_000 }],
    [{ type: 'end', outcome: 'finished', answer: 'a' }, null],
    [{ type: 'usage', usage: {} }, null],
    [{ type: 'parse_error', step: 1 }, null],
  ];
  for (const [e, want] of cases) assert.deepEqual(pageEvent(e, 1_000_000), want, e.type);
});

test('the relay follows the tab that started the run; a panel task clears it; a panel reply keeps it', () => {
  const sent = [];
  const relay = createPageRelay({ send: (tabId, m) => { sent.push([tabId, m]); } });
  relay.event({ type: 'attached' });
  assert.deepEqual(sent, [], 'nothing before a page task');
  relay.begin(7, false);
  assert.equal(relay.owns(7), true);
  assert.equal(relay.owns(8), false);
  relay.blocked({ code: 'missing_model', message: 'Set the model.' });
  relay.event({ type: 'step', step: 1, phase: 'observe' });
  relay.event({ type: 'usage' });
  relay.error('Could not run the task: x');
  relay.outcome({ type: 'end', outcome: 'call_user', question: 'Which?', step: 2 });
  assert.deepEqual(sent, [
    [7, { type: 'gnosis.pageAssistant', event: { type: 'blocked', code: 'missing_model', message: 'Set the model.' } }],
    [7, { type: 'gnosis.pageAssistant', event: { type: 'step', step: 1, phase: 'observe' } }],
    [7, { type: 'gnosis.pageAssistant', event: { type: 'error', message: 'Could not run the task: x' } }],
    [7, { type: 'gnosis.pageAssistant', event: { type: 'end', outcome: 'call_user', answer: undefined, question: 'Which?', error: undefined, step: 2 } }],
  ]);
  relay.begin(undefined, true);
  assert.equal(relay.owner, 7, 'a reply typed in the panel keeps the page following');
  relay.begin(undefined, false);
  assert.equal(relay.owner, null, 'a new panel task is the panel\'s');
  assert.equal(relay.owns(null), false);
});

test('a page task while another runs is refused and the page told why', () => {
  const sent = [];
  const relay = createPageRelay({ send: (tabId, m) => { sent.push([tabId, m]); } });
  assert.equal(relay.accept(3, false), true);
  assert.deepEqual(sent, []);
  assert.equal(relay.accept(3, true), false);
  assert.deepEqual(sent, [[3, { type: 'gnosis.pageAssistant', event: { type: 'error', message: 'A task is already running; stop it first.' } }]]);
});

test('a failing sender never throws into the panel', () => {
  const relay = createPageRelay({ send: () => { throw new Error('no tab'); } });
  relay.begin(1);
  assert.doesNotThrow(() => relay.event({ type: 'attached' }));
  const rejecting = createPageRelay({ send: () => Promise.reject(new Error('no receiver')) });
  rejecting.begin(1);
  assert.doesNotThrow(() => rejecting.error('x'));
});

test('Pause hands the page over and Resume takes it back; Stop works while paused; Pause is offered only while running', () => {
  const running = run([...ready, SUBMIT, { type: 'attached' }, { type: 'step', step: 2, phase: 'request' }]);
  assert.equal(S.view(running).showPause, true);
  assert.equal(S.view(running).pauseLabel, 'Pause');
  const pausing = S.reduce(running, { type: 'pause' });
  assert.equal(S.view(pausing).status, 'Pausing…');
  assert.equal(S.view(pausing).pauseDisabled, true);
  const paused = S.reduce(pausing, { type: 'paused', step: 2 });
  const v = S.view(paused);
  assert.equal(v.status, 'Paused at step 2');
  assert.equal(v.pauseLabel, 'Resume');
  assert.equal(v.showStop, true);
  assert.equal(v.showInput, false);
  assert.match(v.summary, /act on it by hand, then press Resume/);
  const resumed = run([{ type: 'resume' }, { type: 'resumed', step: 2 }], paused);
  assert.equal(resumed.phase, 'running');
  assert.equal(S.view(resumed).pauseLabel, 'Pause');
  const stopped = run([{ type: 'stop' }, { type: 'end', outcome: 'stopped', step: 2 }], paused);
  assert.equal(stopped.card.title, 'Stopped');
  assert.equal(stopped.card.text, 'at step 2');
  assert.equal(S.view(run(ready)).showPause, false, 'no Pause while idle');
  const idle = run(ready);
  assert.equal(S.reduce(idle, { type: 'pause' }), idle);
});

test('a question offers "I did it on the page", whose submission is a reply marked acted', () => {
  const asked = run([...ready, SUBMIT, { type: 'attached' }, { type: 'end', outcome: 'call_user', question: 'Log in?' }]);
  assert.equal(S.view(asked).showActed, true);
  assert.deepEqual(S.submission(asked, S.ACTED_ANSWER, { acted: true }), { type: 'agent.pageTask', task: 'I did it on the page.', reply: true, acted: true, surface: 'tab' });
  assert.equal(S.view(run([{ type: 'dismiss' }], asked)).showActed, false, 'dismissed: answer by typing');
  assert.equal(S.view(run(ready)).showActed, false);
});

test('a cropped, shrunk or partly off-screen bar is locked like a covered one, and says which', () => {
  const shown = run(ready);
  const cropped = S.reduce(shown, { type: 'visibility', visible: false, why: 'cropped', at: 2000 });
  assert.equal(S.view(cropped).locked, true);
  assert.equal(S.view(cropped).guard, S.CROPPED_MESSAGE);
  assert.equal(S.reduce(cropped, { type: 'submit', at: 9000 }).phase, 'idle');
  const covered = S.reduce(cropped, { type: 'visibility', visible: false, why: 'covered', at: 2100 });
  assert.equal(S.view(covered).guard, S.COVERED_MESSAGE);
  const whole = S.reduce(covered, { type: 'visibility', visible: true, at: 3000 });
  assert.equal(S.view(whole).locked, false);
  assert.equal(S.reduce(whole, { type: 'submit', at: 3000 + S.MIN_SHOWN_MS }).phase, 'pending');
});

test('where the task starts: Desktop only while the worker says it is offered, and the bar says why not', () => {
  const start = run(ready);
  let v = S.view(start);
  assert.deepEqual([v.where, v.desktopOffered, v.desktopLabel], ['tab', false, S.DESKTOP_CHECKING], 'not known yet');
  assert.equal(S.reduce(start, { type: 'where', surface: 'desktop' }).where, 'tab', 'cannot be chosen before the offer');
  const why = 'The host lists no MCP tools, so there is no desktop to drive.';
  const no = S.reduce(start, { type: 'desktop', offered: false, why });
  v = S.view(no);
  assert.deepEqual([v.desktopOffered, v.desktopLabel], [false, S.DESKTOP_NOT_OFFERED]);
  assert.equal(v.whereTitle, `Where the task starts. The desktop is not offered: ${why}`);
  assert.equal(S.submission(S.reduce(no, { type: 'where', surface: 'desktop' }), 'x').surface, 'tab');
  const yes = S.reduce(no, { type: 'desktop', offered: true, why: 'ignored' });
  const chosen = S.reduce(yes, { type: 'where', surface: 'desktop' });
  v = S.view(chosen);
  assert.deepEqual([v.where, v.desktopOffered, v.desktopLabel], ['desktop', true, 'Desktop']);
  assert.equal(v.placeholder, 'Ask the agent to do something on the desktop…');
  assert.equal(S.submission(chosen, 'open the terminal').surface, 'desktop');
  // The desktop goes away (its server removed): the choice falls back to This page.
  const gone = S.reduce(chosen, { type: 'desktop', offered: false, why: 'no screenshot tool' });
  assert.equal(S.view(gone).where, 'tab');
  assert.equal(S.view(gone).placeholder, 'Ask the agent to do something on this page…');
  // The offer outlives the setting being turned off and on.
  const again = run([{ type: 'settings', enabled: false }, { type: 'settings', enabled: true }], yes);
  assert.equal(S.view(again).desktopOffered, true);
});
