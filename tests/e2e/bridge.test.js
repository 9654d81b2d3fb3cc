// The chat bridge end to end: the real extension in headless Chromium,
// configured through its options page as a person would, reading a local chat
// page that streams the assistant's reply token by token, running capabilities
// through the real gnosis-host against the fake Munim, injecting the reply and
// clicking send.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { ackCount, armedIn, armFromOptions, badgeText, judged, judgedUpTo, sent, waitForSent } from './lib/bridge.js';

const SETTLE = 300; // the settle delay the tests configure (ms)

// Two sites = two origins: the textarea chat and the contenteditable chat.
let plain;
let rich;
let guarded;
let env;

before(async () => {
  plain = await serve();
  rich = await serve();
  guarded = await serve();
  const allowed = ['computer.click', 'computer.type_text', 'computer.screenshot', 'computer.echo', 'computer.scroll'];
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'],
    policy: { origins: { [plain.origin]: allowed, [rich.origin]: allowed } },
    sites: [guarded.origin],
  });
});

after(async () => {
  await env?.close();
  await plain?.close();
  await rich?.close();
  await guarded?.close();
});

const settingsFor = (destination) => ({
  source: '.assistant', destination, autoSend: true, sendButton: '#send', debounceMs: SETTLE,
});

function callsTo(tool) {
  return env.calls().filter((c) => c.tool === tool);
}

describe('textarea chat', () => {
  let chat;
  let options;
  const url = () => plain.url('/chat.html?history=t1');

  before(async () => {
    chat = await env.newPage(url());
    options = await armFromOptions(env, settingsFor('.composer'));
    assert.equal(await options.locator('#current-origin').textContent(), plain.origin);
  });

  test('a streamed tool call runs once in the provider with its arguments, and the reply is injected and sent', async () => {
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.click", "arguments": {"x": 12, "y": 34}}'));
    const calls = await env.waitForCalls(1);
    assert.deepEqual(calls.map((c) => [c.tool, c.arguments]), [['click', { x: 12, y: 34 }]]);
    const [reply] = await waitForSent(chat, 1);
    const parsed = JSON.parse(reply);
    assert.equal(parsed.ok, true);
    assert.equal(parsed.capability, 'computer.click');
    assert.ok(Array.isArray(parsed.result.content), reply);
    await judgedUpTo(env, plain.origin, chat);
    assert.equal(callsTo('click').length, 1, 'executed at most once');
    assert.equal(await badgeText(env, url()), 'ON');
  });

  test('prose and half-streamed JSON are never executed; the completed call is', async () => {
    const before = env.calls().length;
    const after = await ackCount(env, plain.origin);
    await chat.evaluate(() => window.chat.stream('Sure, I will type "hello" for you: {"capability": "computer.type_text"}'));
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.type_text", "argu'));
    // The half message settles while incomplete, and the bridge judges it.
    const index = await chat.evaluate(() => document.querySelectorAll('.assistant').length);
    assert.equal((await judged(env, plain.origin, { after, index })).action, 'none');
    assert.equal(env.calls().length, before, 'nothing ran for prose or partial JSON');
    await chat.evaluate(() => window.chat.stream('ments": {"text": "hello"}}', { resume: true }));
    await waitFor(() => callsTo('type_text').length === 1, { what: 'type_text call' });
    assert.deepEqual(callsTo('type_text')[0].arguments, { text: 'hello' });
    const replies = await waitForSent(chat, 2);
    assert.equal(JSON.parse(replies[1]).ok, true);
  });

  test('a fenced call runs, and images in the result are summarised, not dumped', async () => {
    await chat.evaluate(() => window.chat.stream('```json\n{"capability": "computer.screenshot", "arguments": {"bytes": 5000}}\n```'));
    const replies = await waitForSent(chat, 3);
    const [json, note] = replies[2].split('\n\n');
    const reply = JSON.parse(json);
    assert.equal(reply.ok, true);
    const image = reply.result.content[0];
    assert.equal(image.type, 'image');
    assert.equal(image.bytes, 5000);
    assert.equal(image.data, '[image 1 of 1: see below]');
    // The lines after the result say what became of it (the fake Munim's bytes are no picture).
    assert.match(note, /^The image of this result could not be attached to this message:\nimage 1 of 1: computer\.screenshot \(PNG 4\.9 KiB\), not attached: /);
  });

  test('invalid arguments inject INVALID_ARGUMENTS and run nothing', async () => {
    const clicks = callsTo('click').length;
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.click", "arguments": {"x": -5}}'));
    const replies = await waitForSent(chat, 4);
    const reply = JSON.parse(replies[3]);
    assert.equal(reply.ok, false);
    assert.equal(reply.code, 'INVALID_ARGUMENTS');
    assert.ok(reply.details.errors.length >= 1);
    assert.equal(callsTo('click').length, clicks);
  });

  test("a capability the host's policy forbids for this origin injects FORBIDDEN and runs nothing", async () => {
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.drag", "arguments": {"from": {"x": 1, "y": 1}, "to": {"x": 2, "y": 2}}}'));
    const replies = await waitForSent(chat, 5);
    const reply = JSON.parse(replies[4]);
    assert.equal(reply.ok, false);
    assert.equal(reply.code, 'FORBIDDEN');
    assert.equal(callsTo('drag').length, 0);
  });

  test('a reload does not re-run the old message, but the same call in a new message runs', async () => {
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.scroll", "arguments": {"direction": "down", "amount": 3}}'));
    await waitFor(() => callsTo('scroll').length === 1, { what: 'scroll call' });
    await waitForSent(chat, 6);
    // The page re-renders the same conversation after a reload; the user
    // message sent last is not the newest assistant message, so make the
    // call the newest message again by reloading before anything else.
    const after = await ackCount(env, plain.origin);
    await chat.reload();
    await chat.waitForFunction(() => document.querySelectorAll('.assistant').length >= 6);
    const index = await chat.evaluate(() => document.querySelectorAll('.assistant').length);
    assert.equal((await judged(env, plain.origin, { after, index })).action, 'none', 'the reloaded call was judged, not run');
    assert.equal(callsTo('scroll').length, 1, 'the old message was not executed again');
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.scroll", "arguments": {"direction": "down", "amount": 3}}'));
    await waitFor(() => callsTo('scroll').length === 2, { what: 'second scroll call' });
  });

  test('Stop halts: nothing runs after Stop', async () => {
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent()) === 'Stopped', { what: 'stopped' });
    const before = env.calls().length;
    const after = await ackCount(env, plain.origin);
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.click", "arguments": {"x": 1, "y": 1}}'));
    assert.equal(await badgeText(env, url()), '');
    // Start again: the bridge now reads the page and judges that call as the
    // page's state at arming (seen, not run), so by then it would have run if
    // the stopped bridge had taken it.
    const index = await chat.evaluate(() => document.querySelectorAll('.assistant').length);
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await judged(env, plain.origin, { after, index });
    assert.equal(env.calls().length, before, 'nothing ran for the call made while stopped');
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
  });
});

describe('contenteditable chat', () => {
  let chat;
  let options;

  before(async () => {
    chat = await env.newPage(rich.url('/chat.html?variant=ce&enableDelay=1200'));
    options = await armFromOptions(env, settingsFor('#editor'));
    assert.equal(await options.locator('#current-origin').textContent(), rich.origin);
  });

  test('the reply lands in a ProseMirror-like editor and send is clicked once it is enabled', async () => {
    const before = callsTo('echo').length;
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.echo", "arguments": {"text": "ping"}}'));
    await waitFor(() => callsTo('echo').length === before + 1, { what: 'echo call' });
    const [reply] = await waitForSent(chat, 1);
    const parsed = JSON.parse(reply);
    assert.equal(parsed.ok, true);
    assert.equal(parsed.capability, 'computer.echo');
    assert.equal(await chat.evaluate(() => window.chat.input()), '', 'the editor was cleared by the send');
  });

  test('the reply lands in an editor that accepts only beforeinput (Lexical-like)', async () => {
    const strict = await env.newPage(rich.url('/chat.html?variant=ce-strict'));
    await armedIn(env, strict);
    const before = callsTo('echo').length;
    await strict.evaluate(() => window.chat.stream('{"capability": "computer.echo", "arguments": {"strict": true}}'));
    await waitFor(() => callsTo('echo').length === before + 1, { what: 'echo call' });
    const [reply] = await waitForSent(strict, 1);
    assert.equal(JSON.parse(reply).ok, true);
    assert.deepEqual(callsTo('echo').at(-1).arguments, { strict: true });
    await strict.close();
  });

  test('repeated identical calls stop the session with a visible notice', async () => {
    const call = '{"capability": "computer.echo", "arguments": {"n": 7}}';
    const before = callsTo('echo').length;
    for (let i = 0; i < 3; i++) {
      await chat.evaluate((c) => window.chat.stream(c), call);
      if (i < 2) await waitForSent(chat, 2 + i, 15_000);
    }
    await waitFor(async () => (await chat.locator('gnosis-notice').count()) > 0, { what: 'notice' });
    assert.match(await chat.locator('gnosis-notice [role=alert]').textContent(), /same call computer\.echo 3 times/);
    assert.equal(callsTo('echo').length, before + 2);
    await waitFor(async () => (await options.locator('#armed-state').textContent()) === 'Stopped', { what: 'stopped' });
    assert.equal(await badgeText(env, rich.url('/chat.html?variant=ce&enableDelay=1200')), '!');
  });
});

describe('safety limits and Stop during a call', () => {
  let chat;
  let options;
  const url = () => guarded.url('/chat.html');
  const echo = (n) => `{"capability": "computer.echo", "arguments": {"g": ${n}}}`;

  before(async () => {
    chat = await env.newPage(url());
    options = await armFromOptions(env, { ...settingsFor('#prompt'), maxConsecutive: 2 });
  });

  test('the per-origin cap stops the tool calls that come without a human message', async () => {
    await chat.evaluate((c) => window.chat.stream(c), echo(1));
    await waitForSent(chat, 1);
    await chat.evaluate((c) => window.chat.stream(c), echo(2));
    await waitForSent(chat, 2);
    await chat.evaluate((c) => window.chat.stream(c), echo(3));
    await waitFor(async () => (await chat.locator('gnosis-notice').count()) > 0, { what: 'notice' });
    assert.match(await chat.locator('gnosis-notice [role=alert]').textContent(), /2 tool calls in a row without a message from you/);
    assert.deepEqual(env.calls().filter((c) => c.tool === "echo" && c.arguments.g).map((c) => c.arguments.g), [1, 2]);
    await waitFor(async () => (await options.locator('#armed-state').textContent()) === 'Stopped', { what: 'stopped' });
    assert.match(await options.locator('#form-error').textContent(), /2 tool calls in a row/);
  });

  test('a message typed by the person resets the cap', async () => {
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
    const sentBefore = (await sent(chat)).length;
    await chat.evaluate((c) => window.chat.stream(c), echo(4));
    await waitForSent(chat, sentBefore + 1);
    await chat.evaluate((c) => window.chat.stream(c), echo(5));
    await waitForSent(chat, sentBefore + 2);
    await chat.locator('#prompt').pressSequentially('thanks, go on');
    await chat.locator('#send').click();
    await waitForSent(chat, sentBefore + 3);
    await chat.evaluate((c) => window.chat.stream(c), echo(6));
    await waitFor(() => env.calls().some((c) => c.tool === 'echo' && c.arguments.g === 6), { what: 'call after the human message' });
    await waitForSent(chat, sentBefore + 4);
  });

  test('the badge shows a running call, and Stop cancels it: nothing is injected', async () => {
    const sentBefore = (await sent(chat)).length;
    const after = await ackCount(env, guarded.origin);
    await chat.evaluate(() => window.chat.stream('{"capability": "computer.slow", "arguments": {"ms": 4000}}'));
    await waitFor(async () => (await badgeText(env, url())) === '…', { what: 'running badge' });
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await waitFor(() => env.calls().some((c) => c.tool === 'slow' && c.cancelled), { what: 'cancelled slow call', timeoutMs: 10_000 });
    await waitFor(async () => (await badgeText(env, url())) === '', { what: 'badge cleared' });
    // The bridge's verdict on the cancelled call is to inject nothing.
    const verdict = await judged(env, guarded.origin, { after });
    assert.deepEqual([verdict.action, verdict.reason], ['none', 'stopped while running']);
    assert.equal((await sent(chat)).length, sentBefore, 'nothing was injected or sent after Stop');
    assert.equal(await chat.evaluate(() => window.chat.input()), '');
  });
});
