// The activity log's entries: who decided each call, what is kept of it
// (redacted, cut), the bound (1,000 entries or 30 days, whichever keeps
// fewer), the view's filters and the JSON-lines export.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DECISIONS, LIMITS, OK, addToIndex, argsPreview, bound, callEntry, decide, decisionText, facets, indexItem, jsonLines, looksLikeCall,
  matches, notACallEntry, outcomeLabel, outcomeOf, stoppedEntry, taskEntry, nestTaskCalls,
} from '../../../bridge/core/activity_entries.js';
import { REMEMBER } from '../../../bridge/core/allow_choices.js';

const ok = { ok: true, capability: 'notes.read_note', result: { content: [{ type: 'text', text: 'hello' }] } };
const forbidden = (reason) => ({ ok: false, code: 'FORBIDDEN', message: 'no', details: { reason } });

test('who decided a call: the grants, you, your choice for the session, nobody in time, or the host', () => {
  for (const [approval, reply, want] of [
    [null, ok, DECISIONS.GRANTED],
    [null, forbidden('not-granted'), DECISIONS.BLOCKED],
    [null, forbidden('no-approver'), DECISIONS.BLOCKED],
    [null, { ok: false, code: 'EXECUTION_ERROR' }, DECISIONS.GRANTED],
    [null, { ok: false, code: 'INVALID_ARGUMENTS' }, DECISIONS.REFUSED],
    [null, { ok: false, code: 'HOST_NOT_FOUND' }, DECISIONS.REFUSED],
    [{ answer: 'allow' }, ok, DECISIONS.ALLOWED],
    [{ answer: 'allow', auto: { at: 1, entry: 'x' } }, ok, DECISIONS.REMEMBERED],
    [{ answer: 'deny' }, forbidden('denied'), DECISIONS.DENIED],
    [{ answer: null }, forbidden('timeout'), DECISIONS.TIMED_OUT],
    [{ answer: null }, { ok: false, code: 'CANCELLED' }, DECISIONS.UNANSWERED],
    [{ answer: null }, forbidden('denied'), DECISIONS.DENIED],
  ]) assert.equal(decide(approval, reply), want, JSON.stringify([approval, reply.code]));
});

test('a call\'s entry: time, site, tool, redacted arguments, decision, code, size and duration', () => {
  const e = callEntry({
    origin: 'https://chat.example.com', call: { capability: 'notes.write_note', arguments: { text: 'key sk-proj-AbCdEf123456789', password: 'hunter2', long: 'x'.repeat(500) } },
    started: 1000, ended: 1250, reply: ok, approval: { answer: 'allow', remember: REMEMBER.SESSION, entry: 'e1' }, id: 'e1',
  });
  assert.equal(e.id, 'e1');
  assert.equal(e.at, 1000);
  assert.equal(e.ms, 250);
  assert.equal(e.code, OK);
  assert.equal(e.decision, DECISIONS.ALLOWED);
  assert.equal(e.remember, REMEMBER.SESSION);
  assert.equal(e.asked, true);
  assert.equal(e.bytes, JSON.stringify(ok.result).length);
  assert.deepEqual(JSON.parse(e.result), ok.result);
  const args = JSON.parse(e.args);
  assert.equal(args.password, '[redacted]');
  assert.equal(args.text, 'key sk-[redacted]');
  assert.equal(args.long, `${'x'.repeat(200)}…`);
  assert.ok(!JSON.stringify(e).includes('hunter2') && !JSON.stringify(e).includes('AbCdEf123456789'));
  assert.equal(outcomeLabel(e), 'allowed · session');
  assert.equal(decisionText(e), 'Allowed by you for this session: calls of this tool on this site run without asking until you stop the site or restart the browser');
  assert.equal(decisionText(e, { agent: true }), 'Allowed by you for this session: the browser agent runs this tool without asking until the browser restarts', 'the agent has no site to stop');

  const failed = callEntry({ origin: 'https://a.example', call: { capability: 'computer.x' }, started: 0, ended: 5, reply: { ok: false, code: 'EXECUTION_ERROR', message: 'failed with token=abc123' } });
  assert.equal(failed.code, 'EXECUTION_ERROR');
  assert.equal(failed.message, 'failed with token=[redacted]');
  assert.equal(outcomeOf(failed), 'failed');
  assert.equal(failed.args, '{}');
  const unreachable = callEntry({ origin: 'https://a.example', call: { capability: 'computer.x' }, started: 0, ended: 1, reply: { ok: false, code: 'HOST_NOT_FOUND', message: 'x' } });
  assert.equal(decisionText(unreachable), 'Not run: the host could not be reached');
  assert.equal(outcomeOf(unreachable), 'blocked');
});

test('a binary result is kept as its summary', () => {
  const image = { ok: true, result: { content: [{ type: 'image', mimeType: 'image/png', data: 'A'.repeat(4000) }] } };
  const e = callEntry({ origin: 'https://a.example', call: { capability: 'computer.screenshot' }, started: 0, ended: 1, reply: image,
    summarise: (v) => ({ ...v, content: v.content.map((c) => ({ type: c.type, bytes: c.data.length })) }) });
  assert.deepEqual(JSON.parse(e.result), { content: [{ bytes: 4000, type: 'image' }] });
  assert.ok(e.bytes > 4000);
});

test('a remembered allow names the choice that made it; a failed "always" says so', () => {
  const auto = callEntry({ origin: 'https://a.example', call: { capability: 'notes.write_note' }, started: 0, ended: 1, reply: ok,
    approval: { answer: 'allow', auto: { at: 5, entry: 'first' } } });
  assert.deepEqual(auto.rememberedFrom, { at: 5, entry: 'first' });
  assert.equal(outcomeLabel(auto), 'allowed · session');
  assert.match(decisionText(auto), /your choice for this session/);
  const always = callEntry({ origin: 'https://a.example', call: { capability: 'notes.write_note' }, started: 0, ended: 1, reply: ok,
    approval: { answer: 'allow', remember: REMEMBER.ALWAYS, error: 'could not save "always allow": INVALID_ARGUMENTS: bad' } });
  assert.equal(always.remember, REMEMBER.ALWAYS);
  assert.match(always.rememberError, /could not save/);
});

test('not a call: only replies that look like an attempt are logged, with the gate\'s reason', () => {
  assert.equal(looksLikeCall('Noted.'), false);
  assert.equal(looksLikeCall('{"capability": "nope.x"}'), true);
  assert.equal(looksLikeCall('```json\n{"capability": "a.b", "x": 1}\n```'), true);
  assert.equal(looksLikeCall('{"capability": "computer.click", "argum'), false, 'cut off while streaming');
  assert.equal(looksLikeCall('```json\n{"capability": "computer.click"}'), false, 'an open fence');
  assert.equal(looksLikeCall('I would call {"capability": "x.y"} now'), false, 'prose around it');
  const e = notACallEntry({ origin: 'https://a.example', text: '{"capability": "nope.x", "arguments": {"apiKey": "s3cret-value"}}', reason: 'capability is not under a known prefix', at: 7 });
  assert.equal(e.decision, DECISIONS.NOT_A_CALL);
  assert.equal(e.capability, 'nope.x');
  assert.equal(JSON.parse(e.args).arguments.apiKey, '[redacted]');
  assert.equal(outcomeOf(e), 'not-a-call');
  assert.equal(decisionText(e), 'Not a call: capability is not under a known prefix');
  const s = stoppedEntry({ origin: 'https://a.example', call: { capability: 'computer.click', arguments: { x: 1 } }, reason: 'stopped: the same call computer.click 3 times in a row' });
  assert.equal(outcomeOf(s), 'blocked');
  assert.match(decisionText(s), /^Stopped by the bridge: stopped: the same call/);
});

test('an agent task: its text redacted, its steps, outcome, page and conversation', () => {
  const e = taskEntry({ conversation: 'c1', seq: 4, task: 'log in with password=hunter2', steps: 7, outcome: 'finished', text: 'done', url: 'https://shop.example/cart', at: 9 });
  assert.equal(e.kind, 'task');
  assert.equal(e.key, 'c1:4');
  assert.equal(e.origin, 'https://shop.example');
  assert.equal(e.task, 'log in with password=[redacted]');
  assert.equal(outcomeOf(e), 'task');
  assert.match(decisionText(e), /finished after 7 steps/);
  assert.equal(taskEntry({ conversation: 'c', outcome: 'error', url: 'chrome://newtab' }).origin, '');
});

test('the bound: 1,200 entries keep the newest 1,000; entries older than 30 days go first', () => {
  const now = Date.UTC(2030, 0, 31);
  const entries = Array.from({ length: 1200 }, (_, i) => ({ id: `e${i}`, at: now - 1200 + i, origin: 'https://a.example', kind: 'call', decision: 'granted', code: OK, capability: 'c.x' }));
  const { index, dropped } = addToIndex([], entries, now);
  assert.equal(index.length, LIMITS.maxEntries);
  assert.equal(index[0].id, 'e200');
  assert.equal(index.at(-1).id, 'e1199');
  assert.equal(dropped.length, 200);
  const old = [{ id: 'old', at: now - LIMITS.maxAgeMs - 1 }, { id: 'new', at: now - 10 }];
  assert.deepEqual(bound(old, now), { index: [old[1]], dropped: ['old'] });
  const withOld = addToIndex(old, [{ id: 'n2', at: now, kind: 'call', decision: 'granted', code: OK }], now);
  assert.deepEqual(withOld.index.map((i) => i.id), ['new', 'n2']);
  assert.deepEqual(withOld.dropped, ['old']);
});

test('a task that asked and went on keeps one entry', () => {
  const first = taskEntry({ conversation: 'c1', seq: 2, outcome: 'call_user', at: 1, id: 'a' });
  const again = taskEntry({ conversation: 'c1', seq: 2, outcome: 'finished', at: 2, id: 'b' });
  const one = addToIndex([], [first], 3);
  const two = addToIndex(one.index, [again], 3);
  assert.deepEqual(two.index.map((i) => i.id), ['b']);
  assert.deepEqual(two.dropped, ['a']);
});

test('filters by site, tool and outcome; the filter choices; JSON lines', () => {
  const items = [
    indexItem(callEntry({ origin: 'https://a.example', call: { capability: 'c.read' }, started: 1, ended: 2, reply: ok })),
    indexItem(callEntry({ origin: 'https://b.example', call: { capability: 'c.write' }, started: 2, ended: 3, reply: forbidden('denied'), approval: { answer: 'deny' } })),
    indexItem(taskEntry({ conversation: 'c', outcome: 'finished', url: 'https://a.example/x' })),
  ];
  assert.deepEqual(items.filter((i) => matches(i, { origin: 'https://a.example' })).length, 2);
  assert.deepEqual(items.filter((i) => matches(i, { capability: 'c.write' })).map((i) => i.outcome), ['denied']);
  assert.deepEqual(items.filter((i) => matches(i, { outcome: 'asked' })).map((i) => i.capability), ['c.write']);
  assert.deepEqual(items.filter((i) => matches(i, { outcome: 'task' })).length, 1);
  assert.deepEqual(items.filter((i) => matches(i, {})).length, 3);
  assert.deepEqual(facets(items), { sites: ['https://a.example', 'https://b.example'], tools: ['c.read', 'c.write'] });
  const lines = jsonLines([{ a: 1 }, { b: 'x\ny' }]);
  assert.equal(lines, '{"a":1}\n{"b":"x\\ny"}\n');
  assert.equal(jsonLines([]), '');
});

test('an agent task\'s calls go under its entry, oldest first; calls of a task not listed and the chat sites\' calls stay', () => {
  const entries = [
    { id: 'c3', kind: 'call', task: 'conv:1', capability: 'desktop.computer' },
    { id: 't1', kind: 'task', key: 'conv:1', task: 'write the file' },
    { id: 'c2', kind: 'call', task: 'conv:1', capability: 'desktop.computer' },
    { id: 'c1', kind: 'call', task: 'conv:0', capability: 'desktop.computer' },
    { id: 's1', kind: 'call', capability: 'computer.click', origin: 'https://chat.example' },
  ];
  const out = nestTaskCalls(entries);
  assert.deepEqual(out.map((e) => e.id), ['t1', 'c1', 's1']);
  assert.deepEqual(out[0].calls.map((e) => e.id), ['c2', 'c3']);
  assert.equal(entries[1].calls, undefined, 'the entries given are not changed');
});

test('a collapsed entry shows its arguments on one line: plain words bare, other values as JSON, cut at the bound', () => {
  const call = (args) => callEntry({ origin: 'https://a.example', call: { capability: 'desktop.computer', arguments: args }, started: 1, ended: 2, reply: ok });
  for (const [args, want] of [
    [{ action: 'left_click', coordinate: [640, 360] }, 'action: left_click, coordinate: [640,360]'],
    [{ action: 'type', text: 'echo K-4821 > code.txt' }, 'action: type, text: "echo K-4821 > code.txt"'],
    [{ text: 'line one\nline two' }, 'text: "line one\\nline two"'],
    // In the order the log keeps them (its redacted JSON sorts the keys).
    [{ path: 'C:/Users/me/report.pdf', n: 3, on: true, none: null }, 'n: 3, none: null, on: true, path: C:/Users/me/report.pdf'],
    [{ nested: { a: [1, { b: 'c' }] } }, 'nested: {"a":[1,{"b":"c"}]}'],
    [{}, ''],
    [undefined, ''],
  ]) assert.equal(argsPreview(call(args)), want, JSON.stringify(args));
  // What the log keeps is what shows: a secret-named field stays masked.
  assert.doesNotMatch(argsPreview(call({ password: 'hunter2', user: 'me' })), /hunter2/);
  const long = argsPreview(call({ text: 'x'.repeat(500) }), 40);
  assert.equal(long.length, 40);
  assert.ok(long.endsWith('…'));
  // A stopped call shows what it asked; a reply that was not a call, a task and arguments that are not an object show nothing.
  assert.equal(argsPreview(stoppedEntry({ origin: 'https://a.example', call: { capability: 'x.y', arguments: { n: 1 } }, reason: 'cap' })), 'n: 1');
  assert.equal(argsPreview(notACallEntry({ origin: 'https://a.example', text: '{"capability": "x.y", "arguments": {"n": 1}}', reason: 'unknown' })), '');
  assert.equal(argsPreview(taskEntry({ conversation: 'c', seq: 1, task: 't', steps: 1, outcome: 'finished', text: '', url: 'https://a.example/' })), '');
  assert.equal(argsPreview({ kind: 'call', args: 'not json' }), '');
  assert.equal(argsPreview({ kind: 'call', args: '[1,2]' }), '');
});
