// Approvals that remember and the activity log, end to end: the real host,
// the real extension, the annotated MCP server (fixtures/annotated_mcp.mjs)
// beside the fake Munim. A call asked and allowed once is asked again; keys
// typed, held or pressed as the window opens never approve (issue 22); "for
// this session" answers the next question without a window until the site
// is stopped or the browser restarts (the browser relaunched on the same
// user-data-dir); "always" (a destructive tool asks twice) lands in the
// host's config and the options page and survives the restart; "Ask for
// everything again" undoes it. The Activity view lists each call with the
// right decision, never shows a secret, and 1,200 calls later holds 1,000.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ORIGIN, launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, waitForProviders, waitForSent } from './lib/bridge.js';
import { approveIn, deliberateClick, unfitPlacements } from './lib/approval.js';
import { KEY_QUIET_MS } from '../../extension/bridge/core/approval.js';

const settings = { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300, maxConsecutive: 200 };
const call = (capability, args) => JSON.stringify({ capability, arguments: args });
const APPROVE_URL = `${EXTENSION_ORIGIN}bridge/approval/approve.html`;
const WIDTHS = [360, 400, 480];
const SECRETS = ['AKsecret-9f8e7d6c5b4a', 'tok_abcdefghijklmnop', 'hunter2-hunter2', 'sk-proj-Zyxwvutsrq987654'];

describe('approvals that remember, and the activity log', () => {
  let site;
  let env;
  let chat;
  let options;
  let sentSoFar = 0;
  const windows = []; // every approval window opened, in order
  const watchWindows = () => env.context.on('page', (p) => { if (p.url().startsWith(APPROVE_URL)) windows.push(p); });
  const expected = []; // [decision, pill] of each logged call, oldest first

  /** The next approval window, ready. */
  async function nextWindow() {
    const win = await env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(APPROVE_URL), timeout: 20_000 });
    await win.locator('body[data-ready]').waitFor();
    return win;
  }
  /** Streams a call; whileWaiting(win) answers its approval window when one is expected. Returns the parsed reply. */
  async function run(capability, args, whileWaiting) {
    const opened = whileWaiting ? nextWindow() : null;
    await chat.evaluate((c) => window.chat.stream(c), call(capability, args));
    let failure = null;
    if (whileWaiting) {
      try {
        await whileWaiting(await opened);
      } catch (err) {
        // Closing the window denies the call, so its reply still comes and the next test starts in step.
        failure = err;
        for (const w of env.context.pages()) if (w.url().startsWith(APPROVE_URL)) await w.close().catch(() => {});
      }
    }
    const replies = await waitForSent(chat, ++sentSoFar, 30_000).catch((err) => { throw failure || err; });
    if (failure) throw failure;
    return JSON.parse(replies.at(-1));
  }
  const notes = (tool, name) => env.notesCalls().filter((c) => c.tool === tool && (!name || c.arguments.name === name));
  const policyEntry = () => env.config().policy.origins[site.origin];
  /**
   * Clicks a button that answers the window; the window closes soon after, maybe before the click returns.
   * An Allow is chosen and confirmed as a person does: the pointer comes in, moves onto the button, rests,
   * clicks, then the same on Yes (lib/approval.js).
   */
  async function answer(win, name) {
    const allow = { 'Allow once': '#allow', 'Allow for this session': '#allow-session', 'Always allow on this site': '#allow-always' }[name];
    if (allow) return approveIn(win, allow);
    if (name === 'Yes') return deliberateClick(win, '#confirm-yes');
    await win.getByRole('button', { name, exact: true }).click().catch((err) => {
      if (!win.isClosed()) throw err;
    });
  }
  const deny = (win) => answer(win, 'Deny');
  /**
   * Opens the chat and arms it from the options page, once both providers
   * are ready (the grants table lists what the host has when the page loads).
   */
  async function arm() {
    chat = await env.newPage(site.url('/chat.html'));
    sentSoFar = 0;
    const page = await env.openOptions();
    await waitForProviders(page, 2);
    await page.reload();
    options = await armFromOptions(env, settings, { options: page });
  }
  /** The Activity view's entries, newest first: [decision, pill]. */
  async function listed(page) {
    return page.locator('#activity-list li.entry').evaluateAll((lis) => lis.map((li) => [li.dataset.decision, li.querySelector('.pill').textContent]));
  }
  async function activityPage() {
    const page = await env.openOptions('#activity');
    await page.locator('body[data-activity-ready]').waitFor();
    return page;
  }

  before(async () => {
    site = await serve();
    env = await launch({
      grantOrigins: ['http://127.0.0.1/*'], notes: true,
      policy: { origins: { [site.origin]: { allow: ['computer.echo'], ask: ['notes.write_note', 'notes.delete_note'] } } },
    });
    watchWindows();
    await arm();
  });
  after(async () => {
    await env?.close();
    await site?.close();
  });

  test('allowed once runs once; the same call again is asked again, and Space on Deny denies it', async () => {
    const first = await run('notes.write_note', { name: 'once', text: 'first' }, async (win) => {
      await win.locator('#allow-always:enabled').waitFor();
      for (const width of WIDTHS) {
        await win.setViewportSize({ width, height: 700 });
        // The window lays its buttons out again on the resize: measured once that has run (two frames).
        await win.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const o = await win.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `the approval window at ${width} px overflows: ${JSON.stringify(o)}`);
        assert.deepEqual(await unfitPlacements(win), [], `at ${width} px the buttons' area fits above and below the details`);
        await env.screenshot(win, `approval_${width}`);
      }
      await answer(win, 'Allow once');
    });
    assert.equal(first.ok, true, JSON.stringify(first));
    expected.push(['allowed', 'allowed once']);
    const again = await run('notes.write_note', { name: 'once', text: 'first' }, async (win) => {
      assert.equal(await win.evaluate(() => document.activeElement.id), 'deny');
      await win.keyboard.press('Space').catch(() => {}); // the window may close before the key's release is sent
    });
    assert.equal(again.code, 'FORBIDDEN');
    assert.equal(again.details.reason, 'denied');
    expected.push(['denied', 'denied']);
    assert.equal(notes('write_note', 'once').length, 1);
  });

  test('keys typed as the window opens never approve: Tab, Space, Tab, Enter', async () => {
    const reply = await run('notes.write_note', { name: 'keys-early', text: 'typed into the chat' }, async (win) => {
      // Allow is still disarmed: Tab cannot reach it, and wherever the keys land, nothing allows.
      // Either the keys reach Deny (denied, and the window closes) or nothing happens (then Deny is clicked).
      const closed = () => win.isClosed();
      try {
        for (const key of ['Tab', 'Space', 'Tab', 'Enter']) await win.keyboard.press(key);
        if (!(await win.locator('#outcome').textContent({ timeout: 2000 }))) await deny(win);
      } catch (err) {
        if (!closed()) throw err;
      }
    });
    assert.equal(reply.code, 'FORBIDDEN');
    assert.equal(reply.details.reason, 'denied');
    assert.deepEqual(notes('write_note', 'keys-early'), []);
    expected.push(['denied', 'denied']);
  });

  test('keys never approve as Allow arms: Tab onto it then Space or Enter at once, or a key held from before', async () => {
    const reply = await run('notes.write_note', { name: 'keys', text: 'typed into the chat' }, async (win) => {
      // The moment Allow arms: Tab onto it and press Space, then Enter.
      await win.locator('#allow:enabled').waitFor();
      // Start from the button beside Allow in the tab order (the order is random): Tab, or Shift+Tab, reaches it.
      const back = await win.evaluate(() => {
        const order = [...document.querySelectorAll('#pad button')].filter((b) => !b.hidden && !b.disabled);
        const i = order.findIndex((b) => b.id === 'allow');
        (i > 0 ? order[i - 1] : order[i + 1]).focus();
        window.spaceOn = null;
        addEventListener('keydown', (e) => { if (e.key === ' ' && window.spaceOn === null) window.spaceOn = document.activeElement.id; }, true);
        return i === 0;
      });
      // Pressed as quickly as a person typing: each key stamped 30 ms after the one before, so a
      // stalled machine cannot spread them into a deliberate pause (the window reads the events' times).
      const cdp = await env.context.newCDPSession(win);
      const t0 = Date.now() / 1000;
      const mod = back ? { modifiers: 8 } : {};
      const keys = [['rawKeyDown', 'Tab', 'Tab', 9, null, mod], ['keyUp', 'Tab', 'Tab', 9, null, mod],
        ['keyDown', ' ', 'Space', 32, ' '], ['keyUp', ' ', 'Space', 32], ['keyDown', 'Enter', 'Enter', 13, '\r'], ['keyUp', 'Enter', 'Enter', 13]];
      // Sent all at once, in order: a stalled test process cannot space them out either.
      await Promise.all(keys.map(([type, key, code, vk, text, extra], i) => cdp.send('Input.dispatchKeyEvent', { type, key, code, windowsVirtualKeyCode: vk, ...(text ? { text } : {}), ...extra, timestamp: t0 + 0.03 * i })));
      assert.equal(await win.evaluate(() => window.spaceOn), 'allow', 'Tab reached Allow before Space');
      // A key held from before the window opened reaches it only as auto-repeats.
      for (let i = 0; i < 20; i++) {
        await cdp.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, autoRepeat: true });
      }
      await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13 });
      await cdp.detach();
      assert.equal(await win.locator('#key-hint').isVisible(), true, 'the window says why the keys did nothing');
      assert.equal(await win.locator('#outcome').textContent(), '', 'still no answer');
      assert.equal(notes('write_note', 'keys').length, 0);
      await deny(win);
    });
    assert.equal(reply.code, 'FORBIDDEN');
    assert.equal(reply.details.reason, 'denied');
    assert.deepEqual(notes('write_note', 'keys'), []);
    expected.push(['denied', 'denied']);
  });

  test('the keyboard can still allow: Tab onto Allow once, a pause, Enter; then onto Yes, a pause, Enter', async () => {
    const reply = await run('notes.write_note', { name: 'keyboard', text: 'deliberate' }, async (win) => {
      await win.locator('#allow:enabled').waitFor();
      // The rule: keys count once the window has been quiet for KEY_QUIET_MS, by the window's own clock.
      await win.evaluate(() => { for (const t of ['keydown', 'keyup']) addEventListener(t, (e) => { window.lastKeyAt = e.timeStamp; }, true); });
      const quiet = () => win.waitForFunction((ms) => window.lastKeyAt !== undefined && performance.now() - window.lastKeyAt >= ms, KEY_QUIET_MS, { polling: 50 });
      // The buttons' order is random: Tab until Allow once has the focus.
      const tabTo = async (id) => {
        for (let i = 0; i < 6 && (await win.evaluate(() => document.activeElement?.id)) !== id; i++) await win.keyboard.press('Tab');
        assert.equal(await win.evaluate(() => document.activeElement?.id), id);
      };
      await tabTo('allow');
      await quiet();
      await win.keyboard.press('Enter');
      await win.locator('#confirm-yes:enabled').waitFor();
      assert.equal(await win.evaluate(() => document.activeElement?.id), 'confirm-back', 'the confirmation starts on Back');
      await tabTo('confirm-yes');
      await quiet();
      await win.keyboard.press('Enter').catch(() => {});
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    expected.push(['allowed', 'allowed once']);
  });

  test('allowed for this session: the next call of that tool runs without a window; after Stop and Start it is asked again', async () => {
    const first = await run('notes.write_note', { name: 'session', text: 'one' }, async (win) => {
      await answer(win, 'Allow for this session');
    });
    assert.equal(first.ok, true);
    expected.push(['allowed', 'allowed · session']);
    const opened = windows.length;
    const second = await run('notes.write_note', { name: 'session', text: 'two' });
    assert.equal(second.ok, true, JSON.stringify(second));
    assert.equal(windows.length, opened, 'no approval window for the second call');
    assert.equal(notes('write_note', 'session').length, 2);
    expected.push(['remembered', 'allowed · session']);
    assert.ok(!JSON.stringify(env.config()).includes('session'), 'nothing of it in the host\'s config');
    assert.deepEqual(policyEntry().ask?.includes('notes.write_note'), true);

    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent()) === 'Stopped', { what: 'stopped' });
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed again' });
    const third = await run('notes.write_note', { name: 'session', text: 'three' }, async (win) => {
      // Asked again; this time allowed for the session again, to see a restart forget it.
      await answer(win, 'Allow for this session');
    });
    assert.equal(third.ok, true);
    expected.push(['allowed', 'allowed · session']);
  });

  test('always allow a destructive tool: a second confirmation first; the grant is in the config and on the options page', async () => {
    const reply = await run('notes.delete_note', { name: 'old' }, async (win) => {
      assert.equal(await win.locator('#cap-name').textContent(), 'notes.delete_note');
      await win.locator('#allow-always:enabled').waitFor();
      // The worker will not take an allow without the window's second step.
      const token = new URL(win.url()).searchParams.get('token');
      const unconfirmed = await win.evaluate((t) => chrome.runtime.sendMessage({ type: 'bridge.approve', token: t, allow: true, remember: 'always' }), token);
      assert.equal(unconfirmed.ok, false);
      assert.match(unconfirmed.error, /confirm/);
      await deliberateClick(win, '#allow-always');
      await win.locator('#confirm-text').waitFor();
      assert.equal(await win.locator('#allow-always').isVisible(), false);
      assert.match(await win.locator('#confirm-title').textContent(), /Always allow a destructive tool\?/);
      assert.match(await win.locator('#confirm-detail').textContent(), /Delete a note may delete or overwrite things/);
      for (const width of WIDTHS) {
        await win.setViewportSize({ width, height: 700 });
        await env.screenshot(win, `approval_confirm_always_${width}`);
      }
      await answer(win, 'Yes');
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    expected.push(['allowed', 'allowed · always']);
    assert.ok(policyEntry().allow.includes('notes.delete_note'), JSON.stringify(policyEntry()));
    assert.ok(policyEntry().ask.includes('notes.write_note'), 'the other decisions are kept');
    const group = options.getByRole('radiogroup', { name: 'Delete a note' });
    await waitFor(() => group.getByRole('radio', { name: 'Allow', exact: true }).isChecked(), { what: 'Delete a note shown as Allow' });
    await waitFor(async () => /Always.*notes\.delete_note/s.test(await options.locator('#grants-remembered').textContent()), { what: 'remembered box' });
    await options.setViewportSize({ width: 400, height: 800 });
    await env.screenshot(options.locator('#grants-remembered'), 'grants_remembered_400');
    const opened = windows.length;
    const next = await run('notes.delete_note', { name: 'older' });
    assert.equal(next.ok, true);
    assert.equal(windows.length, opened);
    expected.push(['granted', 'ran']);
  });

  test('the Activity view lists each call with its decision, newest first, and never a secret', async () => {
    const echoed = await run('computer.echo', { apiKey: SECRETS[0], note: `Authorization: Bearer ${SECRETS[1]}`, password: SECRETS[2], text: `use ${SECRETS[3]}` });
    assert.equal(echoed.ok, true);
    expected.push(['granted', 'ran']);
    const blocked = await run('notes.send_mail', { to: 'a@example.com', body: 'hi' });
    assert.equal(blocked.code, 'FORBIDDEN');
    expected.push(['blocked', 'blocked']);
    // A reply that tries a call the contract refuses: logged as not a call, and nothing is sent.
    const judgedBefore = await env.evalInWorker((o) => chrome.storage.session.get(`ack:${o}`).then((g) => g[`ack:${o}`]?.count || 0), site.origin);
    await chat.evaluate(() => window.chat.stream('{"capability": "nope.tool", "arguments": {"token": "tok_abcdefghijklmnop"}}'));
    await waitFor(async () => (await env.evalInWorker((o) => chrome.storage.session.get(`ack:${o}`).then((g) => g[`ack:${o}`]?.count || 0), site.origin)) > judgedBefore, { what: 'not a call judged' });
    expected.push(['not-a-call', 'not a call']);

    const page = await activityPage();
    await waitFor(async () => (await listed(page)).length === expected.length, { what: `${expected.length} entries`, timeoutMs: 15_000 });
    assert.deepEqual(await listed(page), [...expected].reverse());
    assert.match(await page.locator('#activity-count').textContent(), new RegExp(`^${expected.length} entries$`));

    // Opened: the decision sentence, the redacted arguments and result.
    for (const summary of await page.locator('#activity-list summary').all()) await summary.click();
    const text = await page.locator('#activity-list').textContent();
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `the view shows ${secret}`);
    const echo = page.locator('#activity-list li.entry', { has: page.locator('code.cap', { hasText: 'computer.echo' }) });
    const [args, result] = await echo.locator('pre').allTextContents();
    // Closed, the entry says what was asked on one line, as redacted as when opened.
    assert.equal(await echo.locator('summary .args').textContent(), 'apiKey: "[redacted]", note: "Authorization: [redacted]", password: "[redacted]", text: "use sk-[redacted]"');
    assert.equal(JSON.parse(args).password, '[redacted]');
    assert.equal(JSON.parse(args).note, 'Authorization: [redacted]');
    assert.match(result, /\[redacted\]/);
    assert.match(await page.locator('#activity-list li.entry[data-decision="remembered"] .decision').textContent(), /your choice for this session/);
    assert.match(await page.locator('#activity-list li.entry', { hasText: 'allowed · always' }).locator('.decision').textContent(), /Always allowed on this site by you/);
    const stored = JSON.stringify(await env.evalInWorker(() => chrome.storage.local.get(null)));
    for (const secret of SECRETS) assert.ok(!stored.includes(secret), `storage holds ${secret}`);

    // Export: JSON lines, oldest first, redacted.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export (JSON lines)' }).click()]);
    const lines = fs.readFileSync(await download.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((e) => e.decision), expected.map(([d]) => d));
    for (const secret of SECRETS) assert.ok(!JSON.stringify(lines).includes(secret));

    // Filters: by outcome, by tool.
    await page.getByLabel('Outcome', { exact: true }).selectOption({ label: 'Denied or no answer' });
    const denied = expected.filter(([d]) => d === 'denied').length;
    await waitFor(async () => (await listed(page)).every(([d]) => d === 'denied') && (await listed(page)).length === denied, { what: 'denied only' });
    await page.getByLabel('Outcome', { exact: true }).selectOption('');
    await page.getByLabel('Tool', { exact: true }).selectOption('notes.delete_note');
    await waitFor(async () => (await listed(page)).length === 2, { what: 'delete_note only' });
    await page.getByLabel('Tool', { exact: true }).selectOption('');

    // Pictures at side-panel widths, one entry opened; nothing overflows sideways.
    await waitFor(async () => (await listed(page)).length === expected.length, { what: 'all entries again' });
    await page.locator('#activity-list summary').first().click(); // the newest, closed again
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const o = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth }));
      assert.ok(o.scroll <= o.client, `Activity at ${width} px overflows: ${JSON.stringify(o)}`);
      await env.screenshot(page, `activity_${width}`);
    }
    await page.close();
  });

  test('content scripts cannot remember, forget, read, clear or add to the activity', async () => {
    const replies = await env.evalInWorker(async (u) => {
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
      const [res] = await chrome.scripting.executeScript({
        target: { tabId: tab.id }, world: 'ISOLATED',
        func: async () => Promise.all([
          chrome.runtime.sendMessage({ type: 'bridge.approve', token: 'x', allow: true, remember: 'always', confirmed: true }),
          chrome.runtime.sendMessage({ type: 'bridge.forgetChoices', origin: location.origin }),
          chrome.runtime.sendMessage({ type: 'bridge.remembered', origin: location.origin }),
          chrome.runtime.sendMessage({ type: 'activity.list' }),
          chrome.runtime.sendMessage({ type: 'activity.clear' }),
          chrome.runtime.sendMessage({ type: 'activity.task', conversation: 'c', outcome: 'finished', task: 'forged' }),
          // Nor reach the log in storage directly: Chromium keeps storage.local to the extension's own contexts.
          chrome.storage.local.remove('activity').then(() => ({ error: 'storage.local is open to content scripts' }), (err) => ({ error: `is not accepted from content: ${err.message}` })),
        ]),
      });
      return res.result;
    }, site.url('/chat.html'));
    for (const r of replies) assert.match(r.error, /is not accepted from content/);
    const page = await activityPage();
    assert.equal((await listed(page)).length, expected.length, 'nothing added or cleared');
    await page.close();
  });

  test('after a browser restart: the session choice is gone (asked again), "always" and the activity remain', async () => {
    await env.restart();
    watchWindows();
    await arm();
    const page = await activityPage();
    assert.deepEqual(await listed(page), [...expected].reverse(), 'the activity survived the restart');
    await page.close();
    await waitFor(() => options.getByRole('radiogroup', { name: 'Delete a note' }).getByRole('radio', { name: 'Allow', exact: true }).isChecked(), { what: 'always kept' });

    const opened = windows.length;
    const kept = await run('notes.delete_note', { name: 'after-restart' });
    assert.equal(kept.ok, true, JSON.stringify(kept));
    assert.equal(windows.length, opened, '"always" still runs without asking');
    expected.push(['granted', 'ran']);
    const asked = await run('notes.write_note', { name: 'session', text: 'after restart' }, deny);
    assert.equal(asked.details.reason, 'denied', 'the session choice did not survive the restart');
    expected.push(['denied', 'denied']);
  });

  test('Ask for everything again: the "always" goes back to ask, and the next call asks', async () => {
    await options.getByRole('button', { name: 'Ask for everything again' }).click();
    await waitFor(() => policyEntry().ask.includes('notes.delete_note'), { what: 'delete_note back to ask' });
    assert.ok(!policyEntry().allow?.includes('notes.delete_note'));
    await waitFor(() => options.getByRole('radiogroup', { name: 'Delete a note' }).getByRole('radio', { name: 'Ask each time', exact: true }).isChecked(), { what: 'the table reads Ask' });
    await waitFor(() => options.locator('#grants-remembered').isHidden(), { what: 'nothing remembered' });
    const reply = await run('notes.delete_note', { name: 'asked-again' }, deny);
    assert.equal(reply.details.reason, 'denied');
    expected.push(['denied', 'denied']);
  });

  test('1,200 calls through the worker leave the newest 1,000 in the log', async () => {
    const started = Date.now();
    const answered = await env.evalInWorker(async (u) => {
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
      const [res] = await chrome.scripting.executeScript({
        target: { tabId: tab.id }, world: 'ISOLATED',
        func: async () => {
          // One settled reply per call port, as the content script hands it over (bridge/page/call.js):
          // a new reply the gate refuses (an unknown prefix), answered with its verdict.
          const one = (i) => new Promise((resolve) => {
            const port = chrome.runtime.connect({ name: 'bridge.call' });
            port.onMessage.addListener((m) => {
              if (m.type !== 'bridge.verdict') return;
              port.disconnect();
              resolve(m);
            });
            port.postMessage({
              type: 'bridge.extracted', text: `{"capability": "nope.flood", "arguments": {"i": ${i}}}`,
              page: 'flood', reply: i, arrived: true, arrivedAt: Date.now(), index: 1000 + i, conversation: '/flood',
            });
          });
          let n = 0;
          for (let i = 0; i < 1200; i += 100) n += (await Promise.all(Array.from({ length: 100 }, (_, k) => one(i + k)))).length;
          return n;
        },
      });
      return res.result;
    }, site.url('/chat.html'));
    assert.equal(answered, 1200);
    const list = await waitFor(async () => {
      const r = await options.evaluate(() => chrome.runtime.sendMessage({ type: 'activity.list', limit: 5 }));
      return r.entries[0] && JSON.parse(r.entries[0].args).arguments?.i === 1199 ? r : null;
    }, { what: 'the last flood entry', timeoutMs: 30_000 });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(list.total, 1000);
    const keys = await env.evalInWorker(async () => Object.keys(await chrome.storage.local.get(null)).filter((k) => k.startsWith('activity:')).length);
    assert.equal(keys, 1000, 'no entry kept outside the index');
    const oldest = await options.evaluate(() => chrome.runtime.sendMessage({ type: 'activity.list', filter: { outcome: 'not-a-call' }, limit: 1000 }));
    assert.equal(JSON.parse(oldest.entries.at(-1).args).arguments.i, 200, 'the oldest 200 of the flood (and everything before it) went');
    console.log(`# 1,200 calls recorded through the worker in ${seconds.toFixed(1)} s`);
  });

  test('Clear a site: after a confirmation its entries are gone, from the view and from storage', async () => {
    const page = await activityPage();
    await page.getByLabel('Site', { exact: true }).selectOption(site.origin);
    const host = new URL(site.origin).host;
    await page.getByRole('button', { name: `Clear ${host}`, exact: true }).click();
    assert.match(await page.locator('#activity-confirm-text').textContent(), new RegExp(`Clear the activity of ${site.origin}\\?`));
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await waitFor(async () => (await page.locator('#activity-notice').textContent()) === 'Cleared 1,000 entries.', { what: 'cleared' });
    await waitFor(async () => (await page.locator('#activity-count').textContent()) === '0 entries', { what: 'nothing left' });
    const keys = await env.evalInWorker(async () => Object.keys(await chrome.storage.local.get(null)).filter((k) => k.startsWith('activity')));
    assert.deepEqual(keys, ['activity']);
    await page.close();
  });

  test('a tool set to Block and back to Ask on the options page forgets its "for this session" choice: the next call asks', async () => {
    const first = await run('notes.write_note', { name: 'regrant', text: 'one' }, (win) => answer(win, 'Allow for this session'));
    assert.equal(first.ok, true, JSON.stringify(first));
    const opened = windows.length;
    const second = await run('notes.write_note', { name: 'regrant', text: 'two' });
    assert.equal(second.ok, true, JSON.stringify(second));
    assert.equal(windows.length, opened, 'the session choice answered');
    const group = options.getByRole('radiogroup', { name: 'Write a note' });
    await group.getByRole('radio', { name: 'Block', exact: true }).check();
    await waitFor(() => policyEntry().deny?.includes('notes.write_note'), { what: 'write_note blocked' });
    await group.getByRole('radio', { name: 'Ask each time', exact: true }).check();
    await waitFor(() => policyEntry().ask?.includes('notes.write_note'), { what: 'write_note asks again' });
    const third = await run('notes.write_note', { name: 'regrant', text: 'three' }, deny);
    assert.equal(third.details.reason, 'denied', JSON.stringify(third));
    assert.equal(windows.length, opened + 1, 'asked again');
  });
});
