// A task's desktop actions in the worker (agent/worker/desktop_task.js)
// against a scripted execute path and host: a long Type goes in pieces and
// a Stop lets no further piece start, a refused call is the model's to read,
// a server that went away is waited for and the call made once more, and a
// server that fails again (or never comes back) ends the task with its name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { host } from '../../../shared/host.js';
import { BUILTIN_PROFILES } from '../../../agent/core/desktop_profiles.js';
import { actOnDesktop, setDesktopRunner } from '../../../agent/worker/desktop_task.js';

const st = { prefix: 'desktop', profile: BUILTIN_PROFILES[0] };
const shot = { width: 1464, height: 823, sentWidth: 1280, sentHeight: 720 };
const session = () => ({ desktop: { abort: null, shot, choice: st } });
const type = (content) => ({ action: { name: 'Type', args: { content } }, coordinateMode: 'normalized', task: 'c:1' });
const click = { action: { name: 'Click', args: { point: [500, 500] } }, coordinateMode: 'normalized', task: 'c:1' };

/** The host's events and health as the test sets them. */
function scriptedHost(state = 'down') {
  const listeners = new Set();
  host.on = (name, fn) => { if (name !== 'provider.state') return () => {}; listeners.add(fn); return () => listeners.delete(fn); };
  host.health = async () => ({ ok: true, providers: [{ name: 'computer-use-mcp', prefix: 'desktop', state, stderr: 'Computer Use MCP server running on stdio' }] });
  return { emit: (e) => { for (const fn of [...listeners]) fn(e); }, listening: () => listeners.size };
}

test('Stop during a long Type: the piece in flight is cancelled through the host and no further piece starts', async () => {
  scriptedHost('ready');
  const calls = [];
  let second;
  const reached = new Promise((r) => { second = r; });
  setDesktopRunner((c, { signal, task }) => {
    calls.push({ text: c.arguments.text, task });
    if (calls.length < 2) return Promise.resolve({ ok: true, result: { content: [] } });
    second();
    // The server ignores the cancel: the piece runs on, but the host answers CANCELLED.
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, code: 'CANCELLED', message: 'cancelled' })));
  });
  const s = session();
  const acting = actOnDesktop(s, st, type('x'.repeat(120)));
  await reached;
  s.desktop.abort.abort();
  await assert.rejects(acting, (err) => err.code === 'stopped');
  assert.deepEqual(calls.map((c) => c.text.length), [24, 24], 'two of five pieces started: the one done and the one in flight');
  assert.ok(calls.every((c) => c.task === 'c:1'), 'every call carries the task\'s key');
  assert.equal(s.desktop.abort, null);
});

test('a refused call ends the action there, in words the model reads, and nothing else runs', async () => {
  scriptedHost('ready');
  const calls = [];
  setDesktopRunner(async (c) => {
    calls.push(c);
    return { ok: false, code: 'FORBIDDEN', message: 'origin "chrome-extension://abc" may not execute desktop.computer; allow it for this site on the Gnosis options page', details: { reason: 'not-granted' } };
  });
  const r = await actOnDesktop(session(), st, type('y'.repeat(60)));
  assert.equal(calls.length, 1);
  assert.equal(r.error, true);
  assert.match(r.text, /^refused: the agent may not use desktop\.computer: allow it in Settings → Desktop\. /);
  assert.doesNotMatch(r.text, /chrome-extension|options page/);
});

test('a server that went away: the call waits for the host to start it again and is made once more; the result says so', async () => {
  // The health still says ready: the host has not noticed the exit yet. Only its event counts.
  const h = scriptedHost('ready');
  let n = 0;
  setDesktopRunner(async () => {
    n += 1;
    if (n === 1) return { ok: false, code: 'PROVIDER_UNAVAILABLE', message: 'provider "computer-use-mcp" is down: exited (signal: killed); stderr: Computer Use MCP server running on stdio' };
    return { ok: true, result: { content: [{ type: 'text', text: '{"ok":true}' }] } };
  });
  const acting = actOnDesktop(session(), st, click);
  while (!h.listening()) await new Promise((r) => setImmediate(r));
  h.emit({ event: 'provider.state', prefix: 'other', state: 'starting' });
  assert.equal(n, 1, 'another server coming back is not this one');
  h.emit({ event: 'provider.state', prefix: 'desktop', state: 'starting' });
  const r = await acting;
  assert.equal(n, 2);
  assert.equal(r.text, 'clicked the desktop at (733,412) of its 1464x823 screenshot (the desktop server had stopped; the host started it again and the action ran then)');
});

test('a server that fails again after its restart, or does not come back, ends the task naming it, without its banner', async () => {
  const gone = { ok: false, code: 'PROVIDER_UNAVAILABLE', message: 'provider "computer-use-mcp" is down: exited (signal: killed); stderr: Computer Use MCP server running on stdio' };
  scriptedHost('starting');
  let n = 0;
  setDesktopRunner(async () => { n += 1; return gone; });
  await assert.rejects(actOnDesktop(session(), st, click), (err) => {
    assert.equal(err.code, 'PROVIDER_UNAVAILABLE');
    assert.equal(err.message, 'the desktop server "computer-use-mcp" (desktop.*) failed on desktop.computer, and again after the host restarted it: PROVIDER_UNAVAILABLE: provider "computer-use-mcp" is down: exited (signal: killed). Check it on the setup page, then run the task again.');
    return true;
  });
  assert.equal(n, 2, 'tried once more, not again');
  const h = scriptedHost('down');
  setDesktopRunner(async () => gone, { restartWaitMs: 30 });
  await assert.rejects(actOnDesktop(session(), st, click), /failed on desktop\.computer, and the host did not start it again in time: PROVIDER_UNAVAILABLE/);
  assert.equal(h.listening(), 0);
  // The restart's event came before the wait listened: the health at the end of the wait says so, and the call goes.
  scriptedHost('ready');
  n = 0;
  setDesktopRunner(async () => { n += 1; return n === 1 ? gone : { ok: true, result: { content: [] } }; }, { restartWaitMs: 30 });
  assert.match((await actOnDesktop(session(), st, click)).text, /the host started it again/);
  assert.equal(n, 2);
});

test('Stop while waiting for the server to come back ends at once', async () => {
  const h = scriptedHost('down');
  setDesktopRunner(async () => ({ ok: false, code: 'PROVIDER_UNAVAILABLE', message: 'provider "x" is down' }));
  const s = session();
  const acting = actOnDesktop(s, st, click);
  while (!h.listening()) await new Promise((r) => setImmediate(r));
  s.desktop.abort.abort();
  await assert.rejects(acting, (err) => err.code === 'stopped');
  assert.equal(h.listening(), 0, 'the wait let go of the host\'s events');
});
