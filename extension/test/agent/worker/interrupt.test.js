// Stopping actions: every action the executor runs ends as soon as its
// AbortSignal aborts (LongPress releasing the button), and the loop ends a
// run at once on Stop even while the browser side is still busy. The actions
// sleep on a fake clock: short pauses (a Drag's steps) pass at once, a long
// one (a press, a Wait) never passes by itself, so an action that ends did so
// because it was stopped, however slow the machine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import { execute } from '../../../shared/tab_executor.js';
import { AgentSession, OUTCOME } from '../../../agent/core/agent_session.js';

/** Sleeps of at least this long wait for the test; shorter ones pass at once. */
const LONG_MS = 1000;

/** A clock whose long sleeps only a stop ends: pending holds them, onLong hears of each. */
function fakeClock() {
  let id = 0;
  const clock = {
    pending: new Map(),
    onLong: () => {},
    setTimeout(fn, ms) {
      const t = ++id;
      if (ms < LONG_MS) setImmediate(fn);
      else { clock.pending.set(t, ms); queueMicrotask(() => clock.onLong(ms)); }
      return t;
    },
    clearTimeout(t) { clock.pending.delete(t); },
  };
  return clock;
}

function fakeEnv(signal) {
  const sent = [];
  return {
    sent,
    signal,
    timers: fakeClock(),
    viewport: { width: 1000, height: 1000, pageX: 0, pageY: 0 },
    coordinateMode: 'normalized',
    platform: 'linux',
    currentUrl: async () => 'https://a.example/',
    settle: async () => {},
    async send(method, params) {
      sent.push(method === 'Input.dispatchMouseEvent' ? params.type : method);
      if (method === 'Runtime.evaluate') return { result: { value: /scrollX/.test(params.expression) ? { x: 0, y: 0 } : 'div#press' } };
      return {};
    },
  };
}

/**
 * Runs action and aborts it: when it starts a long sleep (abortOnSleep), or
 * when the executor sends the event abortOn for the abortOnCount-th time. The
 * action must reject as stopped with no long sleep left pending (one that
 * never passes by itself: only the stop can have ended it).
 */
async function stopped(action, { abortOnSleep, abortOn, abortOnCount = 1 }) {
  const ac = new AbortController();
  const env = fakeEnv(ac.signal);
  if (abortOn) {
    const send = env.send;
    let seen = 0;
    env.send = async (method, params) => {
      const r = await send(method, params);
      if (env.sent.at(-1) === abortOn && ++seen === abortOnCount) ac.abort();
      return r;
    };
  }
  if (abortOnSleep) env.timers.onLong = () => ac.abort();
  await assert.rejects(execute(action, env), (err) => err.code === 'stopped');
  assert.deepEqual([...env.timers.pending.values()], [], `${action.name} left a sleep pending`);
  return env.sent;
}

test('a stopped LongPress ends at once and releases the mouse button', { timeout: 10_000 }, async () => {
  // 3 s press, stopped while the button is down.
  const sent = await stopped({ name: 'LongPress', args: { point: [500, 500], duration: 3 } }, { abortOnSleep: true });
  assert.deepEqual(sent.slice(-2), ['mousePressed', 'mouseReleased']);
});

test('a stopped Wait, Scroll and Drag end at once; Drag releases the button', { timeout: 10_000 }, async () => {
  await stopped({ name: 'Wait', args: {} }, { abortOnSleep: true }); // Wait lasts 2.5 s
  const scroll = await stopped({ name: 'Scroll', args: { point: [500, 500], direction: 'down' } }, { abortOn: 'mouseWheel' });
  assert.equal(scroll.at(-1), 'mouseWheel', 'nothing is sent after the stop');
  // A drag moves in 10 steps; stopped at its second step, it moves no further and lets go.
  const drag = await stopped({ name: 'Drag', args: { start: [100, 100], end: [900, 900] } }, { abortOn: 'mouseMoved', abortOnCount: 3 });
  assert.equal(drag.filter((m) => m === 'mouseMoved').length, 3);
  assert.equal(drag.at(-1), 'mouseReleased');
});

test('a stopped Type inserts no further pieces and a stopped Hotkey no further repeats', async () => {
  const ac = new AbortController();
  const env = fakeEnv(ac.signal);
  const send = env.send;
  env.send = async (method, params) => {
    if (method === 'Input.insertText') ac.abort();
    return send(method, params);
  };
  await assert.rejects(execute({ name: 'Type', args: { content: 'x'.repeat(5000) } }, env), (err) => err.code === 'stopped');
  assert.equal(env.sent.filter((m) => m === 'Input.insertText').length, 1);

  const ac2 = new AbortController();
  const env2 = fakeEnv(ac2.signal);
  let keys = 0;
  const send2 = env2.send;
  env2.send = async (method, params) => {
    if (method === 'Input.dispatchKeyEvent' && ++keys === 2) ac2.abort();
    return send2(method, params);
  };
  await assert.rejects(execute({ name: 'Hotkey', args: { keys: ['tab'], repeat: 50 } }, env2), (err) => err.code === 'stopped');
  assert.ok(keys <= 2, `${keys} key events after Stop`);
});

test('an action that is already stopped does nothing', async () => {
  const ac = new AbortController();
  ac.abort();
  const env = fakeEnv(ac.signal);
  await assert.rejects(execute({ name: 'Click', args: { point: [1, 1] } }, env), (err) => err.code === 'stopped');
  assert.deepEqual(env.sent, []);
});

test('Stop during a long browser action ends the run at once, without waiting for the action', { timeout: 10_000 }, async () => {
  const template = fs.readFileSync(new URL('../../../agent/prompts/venus_system.txt', import.meta.url), 'utf8');
  const settings = { maxSteps: 10, temperature: 0.5, model: 'm', requestTimeoutMs: 1000, retryBaseMs: 1, retryMaxMs: 1 };
  let acting = false;
  let pressEnded = false;
  let endPress;
  const browser = {
    async start() { return { tabId: 1, url: 'https://a.example/', title: 'A' }; },
    async observe() { return { image: 'IMG', mime: 'image/jpeg', viewport: { width: 800, height: 600 }, url: 'https://a.example/', title: 'A' }; },
    // The press lasts until the test ends it, after the run has ended.
    act() { acting = true; return new Promise((resolve) => { endPress = () => { pressEnded = true; resolve({ text: 'pressed' }); }; }); },
    async stop() {},
  };
  const model = { async complete() { return { content: '<action>LongPress(point=(1,1), duration=3)</action>' }; } };
  const s = new AgentSession({ browser, model, template, config: { settings, endpoint: 'e', loopback: false } });
  const run = s.run('hold it');
  while (!acting) await new Promise((r) => setTimeout(r, 5));
  s.stop();
  const r = await run;
  assert.equal(r.outcome, OUTCOME.STOPPED);
  assert.equal(pressEnded, false, 'the run ended while the press was still held, not after it');
  endPress();
});
