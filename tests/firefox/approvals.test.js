// The bridge's approvals and activity log in headless Firefox: a call the
// site must ask about opens the approval window (a popup of the extension);
// "Allow for this session" runs it, the next call of that tool runs without a
// window, and the Activity view lists both with who decided. The real host,
// the fake Munim, trusted clicks (input.performActions).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serve } from '../e2e/lib/server.js';
import { EXTENSION_URL, armChat, launchFirefox, page, waitFor } from './lib/firefox.js';

const APPROVE = `${EXTENSION_URL}bridge/approval/approve.html`;
let site;
let ff;
let chat;

before(async () => {
  site = await serve();
  ff = await launchFirefox({ policy: { origins: { [site.origin]: { allow: ['computer.echo'], ask: ['computer.click'] } } } });
  chat = await ff.newTab(site.url('/chat.html?history=ffa'));
  await armChat(ff, site.origin);
  await chat.activate();
});

after(async () => {
  await ff?.close();
  await site?.close();
});

const sent = () => chat.evaluate('window.chat.sent');
const waitForSent = (n) => waitFor(async () => { const s = await sent(); return s.length >= n && s; }, { what: `${n} sent messages` });
const approvalContexts = async () => (await ff.bidi.send('browsingContext.getTree', {})).contexts.filter((c) => c.url.startsWith(APPROVE));
const stream = (args) => chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability: 'computer.click', arguments: args }))})`);

test('asked once and allowed for this session: the next call of that tool runs without a window', async () => {
  await stream({ x: 1, y: 2 });
  const [ctx] = await waitFor(async () => { const c = await approvalContexts(); return c.length && c; }, { what: 'the approval window', timeoutMs: 30_000 });
  const win = page(ff.bidi, ctx.context);
  await waitFor(() => win.evaluate('document.body.dataset.ready === "true" && !document.getElementById("allow-session").disabled'), { what: 'Allow armed', timeoutMs: 30_000 });
  assert.equal(await win.text('#cap-name'), 'computer.click');
  await win.deliberateClick('#allow-session');
  // Every Allow is confirmed by a second act: Yes, elsewhere in the window.
  await waitFor(() => win.evaluate('!document.getElementById("confirm-yes").hidden && !document.getElementById("confirm-yes").disabled'), { what: 'Yes armed', timeoutMs: 30_000 });
  await win.deliberateClick('#confirm-yes');
  const [first] = await waitForSent(1);
  assert.equal(JSON.parse(first).ok, true, first);
  await waitFor(async () => (await approvalContexts()).length === 0, { what: 'the window closed' });

  await stream({ x: 3, y: 4 });
  const [, second] = await waitForSent(2);
  assert.equal(JSON.parse(second).ok, true, second);
  assert.equal((await approvalContexts()).length, 0, 'no window for the second call');
  assert.deepEqual(ff.calls().map((c) => c.arguments), [{ x: 1, y: 2 }, { x: 3, y: 4 }]);
});

test('the Activity view lists both calls with who decided', async () => {
  const activity = await ff.openExtensionPage('bridge/options/options.html#activity');
  const listed = () => activity.evaluate(`[...document.querySelectorAll('#activity-list li.entry')].map((li) => [li.dataset.decision, li.querySelector('.pill').textContent])`);
  const entries = await waitFor(async () => { const l = await listed(); return l.length === 2 && l; }, { what: 'two entries', timeoutMs: 30_000 });
  assert.deepEqual(entries, [['remembered', 'allowed · session'], ['allowed', 'allowed · session']]);
});
