// The chat bridge in headless Firefox, end to end: the extension from the
// source tree as a temporary add-on, the real gnosis-host registered in
// ~/.mozilla/native-messaging-hosts (Firefox starts it with the manifest's
// path and our add-on id), the fake Munim as provider, and a local chat page
// armed from the options page with a trusted click on Start.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { serve } from '../e2e/lib/server.js';
import { EXTENSION_DIR } from '../e2e/lib/harness.js';
import { launchFirefox, waitFor } from './lib/firefox.js';
import { TEST_ACKS_KEY } from '../../extension/bridge/core/judge.js';

let site;
let ff;
let chat;
let options;

before(async () => {
  site = await serve();
  ff = await launchFirefox({ policy: { origins: { [site.origin]: ['computer.click', 'computer.echo'] } } });
  chat = await ff.newTab(site.url('/chat.html?history=ff1'));
});

after(async () => {
  await ff?.close();
  await site?.close();
});

const sent = () => chat.evaluate('window.chat.sent');
const waitForSent = (n) => waitFor(async () => { const s = await sent(); return s.length >= n && s; }, { what: `${n} sent messages` });

test('the options page finds the host through Firefox and shows the chat page', async () => {
  options = await ff.openExtensionPage(`bridge/options/options.html?origin=${encodeURIComponent(site.origin)}`);
  await waitFor(() => options.evaluate('document.body.dataset.ready !== undefined'), { what: 'options page ready' });
  const state = await waitFor(async () => {
    const t = await options.text('#host-state');
    return /connected/i.test(t) && !/not connected|checking/i.test(t) && t;
  }, { what: 'host connected', timeoutMs: 15_000 }).catch(async (err) => {
    throw new Error(`${err.message}: ${await options.text('#host-state')} ${await options.text('#host-advice')}`);
  });
  assert.match(state, /connected/i);
  assert.equal(await options.text('#current-origin'), site.origin);
});

test('Start asks for access to the chat page (its host, every port: Firefox patterns have none) and arms it', async () => {
  await options.fill('#source', '.assistant');
  await options.fill('#destination', '.composer');
  await options.fill('#autoSend', true);
  await options.fill('#sendButton', '#send');
  await options.click('#start');
  await waitFor(async () => (await options.text('#armed-state'))?.startsWith('Armed'), { what: 'armed state' }).catch(async (err) => {
    throw new Error(`${err.message}: armed-state ${await options.text('#armed-state')}; error ${await options.text('#form-error')}`);
  });
  assert.equal(await options.evaluate(`chrome.permissions.contains({ origins: ['http://127.0.0.1/*'] })`), true);
});

test('the capability prompt, generated from the host, is inserted into the chat and sent by the person', async () => {
  await options.click('#prompt-insert');
  // The page says when the prompt is in: the chat input can hold other text before (the send button's live check).
  await waitFor(async () => (await options.text('#prompt-state'))?.startsWith('Inserted into the page'), { what: 'the page saying the prompt is in' })
    .catch(async (err) => { throw new Error(`${err.message}: ${await options.text('#prompt-state')}`); });
  const text = await chat.evaluate("document.getElementById('prompt').value");
  for (const part of ['"capability"', 'computer.click', 'computer.echo']) assert.ok(text.includes(part), `prompt lacks ${part}`);
  await chat.activate(); // the person is back on the chat
  await chat.click('#send');
  const [prompt] = await waitForSent(1);
  assert.equal(prompt, text);
});

test('a streamed tool call runs once through the host, and its result is injected and sent', async () => {
  await chat.evaluate('window.chat.stream(\'{"capability": "computer.click", "arguments": {"x": 12, "y": 34}}\')');
  const calls = await ff.waitForCalls(1).catch(async (err) => {
    throw new Error(`${err.message}; options page: ${await options.text('#last-event')}\n${ff.stderr()}`);
  });
  assert.deepEqual(calls.map((c) => [c.tool, c.arguments]), [['click', { x: 12, y: 34 }]]);
  const [, reply] = await waitForSent(2);
  const parsed = JSON.parse(reply);
  assert.equal(parsed.ok, true, reply);
  assert.equal(parsed.capability, 'computer.click');
  // A later reply, once judged by the bridge, proves every earlier one was: the call did not run twice.
  // The bridge acknowledges its verdicts (ack:<origin>) only when a test asks.
  await options.evaluate(`chrome.storage.session.set({ [${JSON.stringify(TEST_ACKS_KEY)}]: true }).then(() => true)`);
  const index = await chat.evaluate("window.chat.stream('Noted.').then(() => document.querySelectorAll('.assistant').length)");
  await waitFor(async () => {
    const ack = await options.evaluate(`chrome.storage.session.get('ack:${site.origin}').then((g) => g['ack:${site.origin}'] || null)`);
    return ack && ack.index >= index;
  }, { what: 'the bridge judged the later reply' });
  assert.equal(ff.calls().length, 1, 'executed at most once');
});

test("a capability the host's policy forbids for this origin injects FORBIDDEN and runs nothing", async () => {
  await chat.evaluate('window.chat.stream(\'{"capability": "computer.type_text", "arguments": {"text": "hi"}}\')');
  const replies = await waitForSent(3);
  const reply = JSON.parse(replies[2]);
  assert.equal(reply.ok, false, replies[2]);
  assert.equal(reply.code, 'FORBIDDEN');
  assert.equal(ff.calls().filter((c) => c.tool === 'type_text').length, 0);
});

test('the sidebar says the browser agent needs a Chromium browser instead of failing silently', async () => {
  const panel = await ff.openExtensionPage('agent/panel/sidepanel.html');
  await waitFor(() => panel.evaluate('document.body.dataset.ready === "true"'), { what: 'side panel ready' });
  const notice = await panel.evaluate(`(() => {
    const n = document.getElementById('needs-chromium');
    return { visible: !n.hidden && n.getClientRects().length > 0, text: n.textContent,
      agentHidden: document.getElementById('chat-view').hidden };
  })()`);
  assert.equal(notice.visible, true, JSON.stringify(notice));
  assert.match(notice.text, /browser agent needs a Chromium browser/);
  assert.equal(notice.agentHidden, true);
});

test("Firefox's own sidebar page (the manifest's sidebar_action) says so and links the bridge options", async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_DIR, 'manifest.json'), 'utf8'));
  const sidebar = await ff.openExtensionPage(manifest.sidebar_action.default_panel);
  await waitFor(() => sidebar.evaluate('document.body.dataset.ready === "true"'), { what: 'sidebar ready' });
  const shown = await sidebar.evaluate(`(() => {
    const n = document.getElementById('needs-chromium');
    return { text: n.textContent, visible: n.getClientRects().length > 0,
      link: new URL(document.getElementById('bridge-options').href).pathname };
  })()`);
  assert.match(shown.text, /browser agent needs a Chromium browser/);
  assert.equal(shown.visible, true);
  assert.equal(shown.link, `/${manifest.options_page}`);
});
