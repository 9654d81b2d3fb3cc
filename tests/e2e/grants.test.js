// What a site may run, end to end: the options page's grants table for a new
// origin (suggestions from the tools' MCP annotations), Start writing the
// choices into the host's config file, changes while armed saved at once,
// calls not granted refused, "ask each time" through the approval window
// (Allow once, Deny, Enter, closing the window), and a content script that
// tries to change grants refused. The real host, the real extension, and an
// MCP server whose tools carry titles and annotations (fixtures/annotated_mcp.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ORIGIN, launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, badgeText, waitForSent } from './lib/bridge.js';
import { approveIn } from './lib/approval.js';

const settings = { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300 };
const call = (capability, args) => JSON.stringify({ capability, arguments: args });
/** The decision checked in a capability's row: 'Allow', 'Ask each time' or 'Block'. */
async function checked(options, name) {
  const group = options.getByRole('radiogroup', { name });
  for (const label of ['Allow', 'Ask each time', 'Block']) {
    if (await group.getByRole('radio', { name: label, exact: true }).isChecked()) return label;
  }
  return null;
}
const row = (options, name) => options.locator('#grants-list li.grant', { has: options.getByRole('radiogroup', { name }) });
const approvalWindow = (env) => env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(`${EXTENSION_ORIGIN}bridge/approval/approve.html`), timeout: 10_000 });
/** The origin's entry in the host's config file, as sets. */
function entry(env, origin) {
  const e = env.config().policy?.origins?.[origin];
  return e && { allow: new Set(e.allow || []), ask: new Set(e.ask || []), deny: new Set(e.deny || []) };
}

describe('grants: the options page and ask each time', () => {
  let env;
  let fresh;
  let armed;
  before(async () => {
    fresh = await serve();
    armed = await serve();
    env = await launch({
      grantOrigins: ['http://127.0.0.1/*'], notes: true,
      policy: { origins: { [armed.origin]: { allow: ['notes.read_note'], ask: ['notes.write_note'] } } },
    });
  });
  after(async () => {
    await env?.close();
    await fresh?.close();
    await armed?.close();
  });

  test('a new origin: read-only tools are suggested Allow, destructive and unannotated ones Ask; Start writes the choices to the config file and they hold; changes while armed are saved at once', async () => {
    const chat = await env.newPage(fresh.url('/chat.html'));
    const options = await env.openOptions();
    await options.locator('body[data-ready]').waitFor();
    await waitFor(async () => (await options.locator('#grants-list li.grant[data-name="notes.send_mail"]').count()) === 1, { what: 'grants table', timeoutMs: 15_000 });
    await waitFor(async () => (await options.locator('#grants-list li.grant[data-name="computer.click"]').count()) === 1, { what: 'fake munim in the table', timeoutMs: 15_000 });
    assert.equal(entry(env, fresh.origin), undefined, 'nothing saved before Start');
    assert.match(await options.locator('#grants-state').textContent(), /not saved yet: Start saves them/);

    assert.equal(await checked(options, 'Read a note'), 'Allow');
    assert.equal(await checked(options, 'Search the web'), 'Allow');
    assert.equal(await checked(options, 'Write a note'), 'Ask each time');
    assert.equal(await checked(options, 'Delete a note'), 'Ask each time');
    assert.equal(await checked(options, 'Wipe the cache'), 'Ask each time', 'says read-only and destructive: never preselected Allow');
    assert.equal(await checked(options, 'notes.send_mail'), 'Ask each time');
    assert.equal(await checked(options, 'computer.click'), 'Ask each time');
    const badges = async (name) => (await row(options, name).locator('.badge').allTextContents()).sort();
    assert.deepEqual(await badges('Read a note'), ['read-only']);
    assert.deepEqual(await badges('Search the web'), ['open-world', 'read-only']);
    assert.deepEqual(await badges('Write a note'), ['idempotent']);
    assert.deepEqual(await badges('Delete a note'), ['destructive']);
    assert.deepEqual(await badges('notes.send_mail'), ['no hints']);
    assert.match(await row(options, 'Read a note').textContent(), /notes\.read_note/);
    // Every row, fake Munim's tools included: Allow exactly where the badges say read-only and not destructive,
    // and each in the group its badges describe.
    const shown = await options.locator('#grants-list li.grant').evaluateAll((lis) => lis.map((li) => ({
      name: li.dataset.name, decision: li.querySelector('input:checked')?.value, group: li.closest('.grant-group').dataset.group,
      badges: [...li.querySelectorAll('.badge')].map((b) => b.textContent),
    })));
    for (const r of shown) {
      assert.equal(r.decision, r.badges.includes('read-only') && !r.badges.includes('destructive') ? 'allow' : 'ask', r.name);
      if (r.group === 'unavailable' || r.group === 'browser') continue;
      const group = r.badges.includes('destructive') ? 'destructive' : r.badges.includes('read-only') ? 'read-only' : 'other';
      assert.equal(r.group, group, r.name);
    }
    // The summary counts the extension's own Browser tools too; the host's config holds the host's tools only.
    const allowedShown = shown.filter((r) => r.decision === 'allow').length;
    const rows = shown.filter((r) => r.group !== 'browser');
    const total = rows.length;
    const allowed = rows.filter((r) => r.decision === 'allow').map((r) => r.name).sort();
    assert.ok(allowed.includes('notes.search_web') && !allowed.includes('notes.wipe_cache'));
    assert.equal(await options.locator('#grants-summary').textContent(), `${allowedShown} allowed, ${shown.length - allowedShown} ask, 0 blocked`);

    await options.getByRole('radiogroup', { name: 'notes.send_mail' }).getByRole('radio', { name: 'Block', exact: true }).check();
    assert.equal(await options.locator('#grants-summary').textContent(), `${allowedShown} allowed, ${shown.length - allowedShown - 1} ask, 1 blocked`);
    await options.setViewportSize({ width: 900, height: 1000 });
    await env.screenshot(options.locator('#grants'), 'grants_table_light');
    await options.emulateMedia({ colorScheme: 'dark' });
    await env.screenshot(options.locator('#grants'), 'grants_table_dark');
    await options.emulateMedia({ colorScheme: 'light' });

    await armFromOptions(env, settings, { options });
    const saved = entry(env, fresh.origin);
    assert.deepEqual([...saved.allow].sort(), allowed);
    assert.deepEqual([...saved.deny], ['notes.send_mail']);
    assert.ok(saved.ask.has('notes.delete_note') && saved.ask.has('notes.wipe_cache') && saved.ask.has('computer.click'));
    assert.equal(saved.ask.size, total - allowed.length - 1);

    // Armed with those choices: a suggested read-only tool runs, the one blocked above is refused.
    await chat.evaluate((c) => window.chat.stream(c), call('notes.read_note', { name: 'todo' }));
    const [ran] = await waitForSent(chat, 1);
    assert.equal(JSON.parse(ran).ok, true);
    assert.deepEqual(env.notesCalls().map((c) => [c.tool, c.arguments]), [['read_note', { name: 'todo' }]]);
    await chat.evaluate((c) => window.chat.stream(c), call('notes.send_mail', { to: 'a@example.com', body: 'hi' }));
    const refused = JSON.parse((await waitForSent(chat, 2))[1]);
    assert.equal(refused.code, 'FORBIDDEN');
    assert.equal(refused.details.reason, 'not-granted');
    assert.match(refused.message, /options page/);
    assert.equal(env.notesCalls().length, 1, 'the blocked call did not run');

    await options.getByRole('radiogroup', { name: 'Write a note' }).getByRole('radio', { name: 'Block', exact: true }).check();
    await waitFor(() => entry(env, fresh.origin).deny.has('notes.write_note'), { what: 'block saved while armed' });
    await options.getByRole('button', { name: 'Block all', exact: true }).click();
    await waitFor(() => entry(env, fresh.origin).deny.size === total, { what: 'block all saved' });
    assert.equal(await options.locator('#grants-summary').textContent(), `0 allowed, 0 ask, ${shown.length} blocked`);
    await options.getByRole('button', { name: 'Ask for all', exact: true }).click();
    await waitFor(() => entry(env, fresh.origin).ask.size === total, { what: 'ask for all saved' });
    await options.close();
    await chat.close();
  });

  describe('an armed page', () => {
    let chat;
    let options;
    let sentSoFar = 0;
    const url = () => armed.url('/chat.html');
    /** Streams a call and returns the parsed reply that was injected and sent. */
    async function run(capability, args, whileWaiting) {
      await chat.evaluate((c) => window.chat.stream(c), call(capability, args));
      if (whileWaiting) await whileWaiting();
      const replies = await waitForSent(chat, ++sentSoFar, 20_000);
      return JSON.parse(replies.at(-1));
    }
    const notes = (tool) => env.notesCalls().filter((c) => c.tool === tool);

    before(async () => {
      chat = await env.newPage(url());
      options = await armFromOptions(env, settings);
    });

    test('ask: the approval window shows the site, the tool and its exact arguments; Enter denies (Deny has the focus)', async () => {
      const long = `${'x'.repeat(3000)}\u202Eend`;
      let shown;
      const reply = await run('notes.write_note', { name: 'plan', text: long }, async () => {
        const win = await approvalWindow(env);
        await win.locator('body[data-ready]').waitFor();
        assert.equal(await win.locator('#origin').textContent(), armed.origin);
        assert.equal(await win.locator('#cap-title').textContent(), 'Write a note');
        assert.equal(await win.locator('#cap-name').textContent(), 'notes.write_note');
        assert.deepEqual(await win.locator('#cap-badges .badge').allTextContents(), ['idempotent']);
        shown = await win.locator('#arguments').textContent();
        assert.match(await win.locator('#countdown').textContent(), /^Denied automatically in (1:00|0:5\d)$/);
        assert.equal(await win.evaluate(() => document.activeElement.id), 'deny');
        assert.equal(await badgeText(env, url()), '?');
        await waitFor(async () => /waiting for your approval: notes\.write_note/.test(await options.locator('#last-event').textContent()), { what: 'Last line' });
        await win.setViewportSize({ width: 520, height: 640 });
        await env.screenshot(win, 'approval_window_light');
        await win.emulateMedia({ colorScheme: 'dark' });
        await env.screenshot(win, 'approval_window_dark');
        await win.emulateMedia({ colorScheme: 'light' });
        await win.locator('#allow:enabled').waitFor();
        // Enter acts on keydown; the window may be gone before a keyup could follow.
        await win.keyboard.down('Enter');
      });
      assert.equal(JSON.parse(shown.replace('\\u202e', '\u202E')).text, long, 'the whole argument, the bidi control visible as an escape');
      assert.ok(!shown.includes('\u202E'));
      assert.equal(reply.ok, false);
      assert.equal(reply.code, 'FORBIDDEN');
      assert.equal(reply.details.reason, 'denied');
      assert.deepEqual(notes('write_note'), []);
    });

    test('ask: Allow once runs the call once and its result is injected; the worker then forgets the approval', async () => {
      let token;
      const reply = await run('notes.write_note', { name: 'plan', text: 'ship it' }, async () => {
        const win = await approvalWindow(env);
        token = new URL(win.url()).searchParams.get('token');
        await approveIn(win, '#allow');
        await waitFor(() => win.isClosed(), { what: 'approval window closed' });
      });
      assert.equal(reply.ok, true);
      assert.deepEqual(reply.result.structuredContent, { tool: 'write_note', arguments: { name: 'plan', text: 'ship it' } });
      assert.deepEqual(notes('write_note').map((c) => c.arguments), [{ name: 'plan', text: 'ship it' }]);
      assert.match(token, /^[0-9a-f]{32}$/);
      const after = await options.evaluate((t) => chrome.runtime.sendMessage({ type: 'bridge.approval', token: t }), token);
      assert.equal(after.ok, false);
      assert.equal(await badgeText(env, url()), 'ON');
    });

    test('ask: closing the approval window denies the call', async () => {
      const reply = await run('notes.write_note', { name: 'other', text: 'no' }, async () => {
        const win = await approvalWindow(env);
        await win.locator('body[data-ready]').waitFor();
        await win.close();
      });
      assert.equal(reply.code, 'FORBIDDEN');
      assert.equal(reply.details.reason, 'denied');
      assert.equal(notes('write_note').length, 1, 'only the allowed call ran');
    });

    test('a content script cannot change grants or answer approvals; the host\'s policy is unchanged', async () => {
      const before = JSON.stringify(env.config().policy);
      const replies = await env.evalInWorker(async (u) => {
        const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
        const [res] = await chrome.scripting.executeScript({
          target: { tabId: tab.id }, world: 'ISOLATED',
          func: async () => {
            const origin = location.origin;
            const grants = { 'notes.delete_note': 'allow', 'notes.send_mail': 'allow' };
            return Promise.all([
              chrome.runtime.sendMessage({ type: 'bridge.setGrants', origin, grants }),
              chrome.runtime.sendMessage({ type: 'bridge.start', origin, grants }),
              chrome.runtime.sendMessage({ type: 'bridge.getGrants', origin }),
              chrome.runtime.sendMessage({ type: 'bridge.approve', token: 'x', allow: true }),
            ]);
          },
        });
        return res.result;
      }, url());
      for (const r of replies) {
        assert.equal(r.ok, false);
        assert.match(r.error, /is not accepted from content/);
      }
      assert.equal(JSON.stringify(env.config().policy), before);
      const refused = await run('notes.delete_note', { name: 'todo' });
      assert.equal(refused.code, 'FORBIDDEN');
      assert.deepEqual(notes('delete_note'), []);
    });
  });
});

describe('grants: no answer in time', () => {
  let env;
  let site;
  before(async () => {
    site = await serve();
    env = await launch({
      grantOrigins: ['http://127.0.0.1/*'], notes: true, askTimeout: '2s',
      policy: { origins: { [site.origin]: { ask: ['notes.write_note'] } } },
    });
  });
  after(async () => {
    await env?.close();
    await site?.close();
  });

  test('no click within askTimeout denies the call (FORBIDDEN timeout) and closes the window', async () => {
    const chat = await env.newPage(site.url('/chat.html'));
    await armFromOptions(env, settings);
    // Two seconds is short for a test driver to catch the window: the worker notes the windows it opens.
    await env.evalInWorker(() => {
      globalThis.openedForTest = [];
      chrome.tabs.onCreated.addListener((t) => globalThis.openedForTest.push(t.pendingUrl || t.url));
    });
    await chat.evaluate((c) => window.chat.stream(c), call('notes.write_note', { name: 'late', text: 'too late' }));
    const [reply] = await waitForSent(chat, 1, 15_000);
    const parsed = JSON.parse(reply);
    assert.equal(parsed.code, 'FORBIDDEN');
    assert.equal(parsed.details.reason, 'timeout');
    assert.match(parsed.message, /no decision/);
    const windows = await env.evalInWorker(async () => ({
      opened: globalThis.openedForTest.filter((u) => u.includes('/approve.html?token=')).length,
      open: (await chrome.tabs.query({})).filter((t) => t.url.includes('/approve.html')).length,
    }));
    assert.deepEqual(windows, { opened: 1, open: 0 }, 'one approval window opened, and it is closed');
    assert.deepEqual(env.notesCalls(), []);
  });
});
