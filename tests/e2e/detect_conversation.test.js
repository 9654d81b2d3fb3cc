// Arming without Pick on real open-source chat UIs (lib/realchats.js:
// assistant-ui in React, Gradio's chatbot in Svelte, Ant Design X Vue in Vue,
// each built from its npm packages, presets off): "Arm this site" from the
// options page, one message sent at a person's typing pace while the panel
// watches, "Use these" and Start, nothing else set by hand. Then the
// conversation script: a call runs once and its result is sent; prose runs
// nothing; the same call in a later turn and in a new conversation runs each
// time; after a reload, nothing old runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { ackCount, armedIn, judged } from './lib/bridge.js';
import { builtUis, openUi, typeAndSend } from './lib/realchats.js';

const UIS = builtUis();
const served = {};
let env;

before(async () => {
  for (const ui of UIS) served[ui.id] = await openUi(ui, { paceMs: 40 });
  const origins = Object.fromEntries(Object.values(served).map((s) => [s.origin, ['computer.echo']]));
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], policy: { origins } });
});

after(async () => {
  await env?.close();
  for (const s of Object.values(served)) await s?.close();
});

const panel = (chat) => chat.locator('gnosis-detect [role=dialog]');
const row = (chat, field) => panel(chat).locator(`li[data-field="${field}"]`);
const FIELDS = ['source', 'destination', 'sendButton', 'streaming'];

describe('arming without Pick, then a conversation, on real chat UIs', () => {
  for (const ui of UIS) {
    test(`${ui.name}: "Use these" alone, and the conversation script passes`, async () => {
      const s = served[ui.id];
      const echoes = () => env.calls().filter((c) => c.tool === 'echo' && c.arguments.ui === ui.id).length;
      const CALL = JSON.stringify({ capability: 'computer.echo', arguments: { ui: ui.id, text: 'from a real chat UI' } });
      const chat = await env.newPage(s.url('/index.html'));
      await chat.setViewportSize({ width: 1000, height: 760 });
      await chat.locator(ui.input).waitFor();
      const options = await env.openOptions(`?origin=${encodeURIComponent(s.origin)}&detect=1`);
      await options.locator('body[data-ready]').waitFor();
      await panel(chat).waitFor();

      // One message, typed and sent as a person does, while the panel watches the reply.
      await s.queue(chat, 'Hello! I am the assistant, and this reply streams for a little while so the page can be watched.');
      await typeAndSend(chat, ui, 'hello there');
      await waitFor(async () => /grew/.test(await row(chat, 'source').textContent()), { what: `${ui.id}: the replies proposed`, timeoutMs: 20_000 });
      await waitFor(async () => /showed while the reply streamed/.test(await row(chat, 'streaming').textContent()), { what: `${ui.id}: the streaming sign`, timeoutMs: 20_000 });
      for (const f of FIELDS) assert.equal(await row(chat, f).locator('input').isChecked(), true, `${ui.id}: ${f} ticked: ${await row(chat, f).textContent()}`);
      assert.match(await row(chat, 'sendButton').textContent(), /you clicked it to send/);
      assert.match(await row(chat, 'streaming').textContent(), /Seen while the reply streamed: <button/);
      await env.screenshot(chat, `detect_conversation_${ui.id}_panel`);
      await panel(chat).getByRole('button', { name: 'Use these' }).click();
      await waitFor(async () => /Filled in from the page: Extract from, Inject into, Send button, Still replying while\./.test(await options.locator('#detect-state').textContent()),
        { what: `${ui.id}: the form filled in` });
      assert.equal(await options.getByLabel('Auto-send', { exact: true }).isChecked(), true, 'Auto-send follows the send button found');
      await options.getByRole('button', { name: 'Start', exact: true }).click();
      await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
      await armedIn(env, chat);

      // A call runs once and its result is sent; the model's answer to the result is prose, which runs nothing.
      const said = async () => s.said(chat);
      // The place of the reply holding text among the page's replies (1 for the first), once it is there in full.
      const replyIndex = (chat, text) => waitFor(() => chat.evaluate(([css, t]) => {
        const all = [...document.querySelectorAll(css)];
        const i = all.findIndex((el) => el.textContent.includes(t));
        return i >= 0 ? i + 1 : null;
      }, [ui.truth.source, text]), { what: `${ui.id}: the reply “${text}”`, timeoutMs: 20_000 });
      const sentResults = async () => (await said()).filter((m) => m.includes('from a real chat UI') && m.includes('"ok"')).length;
      await s.queue(chat, CALL);
      await s.queue(chat, 'Thanks, that is all I needed.');
      await typeAndSend(chat, ui, 'run the echo, please');
      await waitFor(() => echoes() === 1, { what: `${ui.id}: the call`, timeoutMs: 20_000 });
      await waitFor(async () => (await sentResults()) === 1, { what: `${ui.id}: the result sent`, timeoutMs: 20_000 });
      let acks = await ackCount(env, s.origin);
      await s.queue(chat, 'Nothing to run here, only words.');
      await typeAndSend(chat, ui, 'just talk');
      await judged(env, s.origin, { after: acks, index: await replyIndex(chat, 'Nothing to run here') });
      assert.equal(echoes(), 1, 'prose ran nothing');

      // The same call in a later turn runs again.
      await s.queue(chat, CALL);
      await s.queue(chat, 'Done again.');
      await typeAndSend(chat, ui, 'once more');
      await waitFor(() => echoes() === 2, { what: `${ui.id}: the call in a later turn`, timeoutMs: 20_000 });
      await waitFor(async () => (await sentResults()) === 2, { what: `${ui.id}: the second result sent`, timeoutMs: 20_000 });

      // A new conversation (where the UI has none: the page loaded anew), and the same call runs there too.
      if (ui.newChat) await chat.locator(ui.newChat).click();
      else await chat.reload();
      await armedIn(env, chat);
      // What the person sent so far (a page that keeps it in the page forgets it when it loads anew).
      const results = await sentResults();
      await s.queue(chat, CALL);
      await s.queue(chat, 'Done in the new conversation.');
      await typeAndSend(chat, ui, 'a new conversation');
      await waitFor(() => echoes() === 3, { what: `${ui.id}: the call in a new conversation`, timeoutMs: 20_000 });
      await waitFor(async () => (await sentResults()) === results + 1, { what: `${ui.id}: the third result sent`, timeoutMs: 20_000 });

      // After a reload, the conversation the page shows again (where it keeps one) runs nothing old.
      await chat.reload();
      await chat.locator(ui.input).waitFor();
      await armedIn(env, chat);
      acks = await ackCount(env, s.origin);
      await s.queue(chat, 'Only words after the reload.');
      await typeAndSend(chat, ui, 'after the reload');
      await judged(env, s.origin, { after: acks, index: await replyIndex(chat, 'Only words after the reload') });
      assert.equal(echoes(), 3, 'nothing old ran after the reload');
      await options.getByRole('button', { name: 'Stop', exact: true }).click();
      await options.close();
      await chat.close();
    });
  }
});
