// Edge cases of the chat bridge in the real browser. Large replies: the host splits them into chunk
// frames (a small GNOSIS_MAX_FRAME forces it), the extension's native client
// reassembles them, images are summarised (and said not to be attached when
// the browser cannot read them), and the injected text is capped
// with a clear marker. Also: a send button that never enables, and two tabs of
// one conversation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { ackCount, armedIn, armFromOptions, badgeText, openTimingFold, storedSettings, waitForSent } from './lib/bridge.js';

let env;
let site;
let chat;
before(async () => {
  site = await serve();
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin], hostEnv: { GNOSIS_MAX_FRAME: '4096' } });
  chat = await env.newPage(site.url('/chat.html'));
  await armFromOptions(env, { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300 });
});
after(async () => {
  await env?.close();
  await site?.close();
});

test('a chunked screenshot reply is reassembled and its image summarised; an image the browser cannot read is said not to be attached', async () => {
  await chat.evaluate(() => window.chat.stream('{"capability": "computer.screenshot", "arguments": {"bytes": 60000, "format": "jpeg"}}'));
  const [reply] = await waitForSent(chat, 1);
  const [json, note] = reply.split('\n\n');
  const parsed = JSON.parse(json);
  assert.equal(parsed.ok, true);
  assert.deepEqual(parsed.result.content[0], { type: 'image', mimeType: 'image/jpeg', bytes: 60000, data: '[image 1 of 1: see below]' });
  // The fake Munim's "JPEG" is a pattern of bytes, not a picture.
  assert.match(note, /^The image of this result could not be attached to this message:\nimage 1 of 1: computer\.screenshot \(JPEG 58\.6 KiB\), not attached: the image is not a readable image\/jpeg image \(.+\)\. You cannot see it\.$/);
});

test('a long text result is capped with a marker', async () => {
  const options = await env.openOptions();
  await options.locator('body[data-ready]').waitFor();
  await openTimingFold(options, 'Longest result (characters)');
  await options.getByLabel('Longest result (characters)', { exact: true }).fill('2000');
  await options.getByLabel('Longest result (characters)', { exact: true }).dispatchEvent('change');
  await waitFor(async () => (await storedSettings(env, site.origin))?.maxChars === 2000, { what: 'the new result limit saved' });
  const long = 'word '.repeat(3000);
  await chat.evaluate((t) => window.chat.stream(JSON.stringify({ capability: 'computer.echo', arguments: { long: t } }), { tokenSize: 400, tokenMs: 5 }), long);
  const replies = await waitForSent(chat, 2);
  const [head, marker] = replies[1].split('\n');
  assert.equal(head.length, 2000);
  assert.match(marker, /^…\[truncated by Gnosis: showing 2000 of \d+ characters\]$/);
  assert.ok(Number(marker.match(/of (\d+)/)[1]) > 15000);
});

test('a send button that never enables is reported visibly, not silently ignored', async () => {
  const stuck = await env.newPage(site.url('/chat.html?enableDelay=600000'));
  await armedIn(env, stuck);
  await stuck.evaluate(() => window.chat.stream('{"capability": "computer.echo", "arguments": {"stuck": true}}'));
  await stuck.locator('gnosis-notice [role=alert]').waitFor({ timeout: 15_000 });
  assert.match(await stuck.locator('gnosis-notice [role=alert]').textContent(), /could not send: Send button stayed disabled for 5 s/);
  assert.equal(JSON.parse(await stuck.evaluate(() => window.chat.input())).ok, true, 'the result was injected');
  assert.deepEqual(await stuck.evaluate(() => window.chat.sent), []);
  // The page shows its notice before it reports to the worker, which then sets the badge.
  await waitFor(async () => (await badgeText(env, stuck.url())) === '!', { what: 'the tab\'s badge saying the send failed' });
  const options = await env.openOptions();
  await waitFor(async () => /failed at send: Send button stayed disabled/.test(await options.locator('#last-event').textContent()), { what: 'failure on the options page' });
});

test('two tabs showing the same conversation run its newest call once', async () => {
  const a = await env.newPage(site.url('/chat.html?twin=a'));
  const b = await env.newPage(site.url('/chat.html?twin=b'));
  await armedIn(env, a);
  await armedIn(env, b);
  const judgedBefore = await ackCount(env, site.origin);
  const call = '{"capability": "computer.echo", "arguments": {"twin": true}}';
  await Promise.all([a.evaluate((c) => window.chat.stream(c), call), b.evaluate((c) => window.chat.stream(c), call)]);
  // Both tabs' replies judged: the one that ran and the one that did not (which says why).
  await waitFor(async () => (await ackCount(env, site.origin)) >= judgedBefore + 2, { what: 'both replies judged', timeoutMs: 15_000 });
  assert.equal(env.calls().filter((c) => c.arguments.twin).length, 1);
  // The tab that did not run it says why on its badge.
  const titles = await env.evalInWorker(async (urls) => {
    const tabs = (await chrome.tabs.query({})).filter((t) => urls.includes(t.url));
    return Promise.all(tabs.map((t) => chrome.action.getTitle({ tabId: t.id })));
  }, [a.url(), b.url()]);
  assert.equal(titles.filter((t) => /did not run the last reply: computer\.echo: another tab of this site ran the same reply/.test(t)).length, 1, titles.join(' | '));
  await a.close();
  await b.close();
});
