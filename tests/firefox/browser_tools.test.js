// The browser.* tools in Firefox, which has no chrome.debugger: what works
// there works (sharing a tab from the sidebar's strip, list_tabs, navigate,
// open_tab, close_tab, wait), and what needs the debugger (the screenshot,
// the reading, every click, key and scroll) is marked unavailable with the
// reason in the grants table, is not offered to the model (the prompt says
// not to call it), and is refused without being tried.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serve } from '../e2e/lib/server.js';
import { armChat, launchFirefox, waitFor } from './lib/firefox.js';

let site;
let forms;
let ff;
let chat;
let options;
let form;

before(async () => {
  site = await serve();
  forms = await serve();
  ff = await launchFirefox({ policy: { origins: { [site.origin]: ['computer.echo'] } } });
  chat = await ff.newTab(site.url('/chat.html?history=ffbrowser'));
});

after(async () => {
  await ff?.close();
  await site?.close();
  await forms?.close();
});

const sent = () => chat.evaluate('window.chat.sent');
const waitForSent = (n) => waitFor(async () => { const s = await sent(); return s.length >= n && s; }, { what: `${n} sent messages` });

/** Streams a call into the chat and returns the result the bridge sent back, parsed. */
async function run(capability, args) {
  const before = (await sent()).length;
  await chat.activate();
  await chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability, arguments: args }))})`);
  const replies = await waitForSent(before + 1);
  return JSON.parse(replies[before]);
}

test('the grants table shows the Browser group, those that need chrome.debugger unavailable with the reason', async () => {
  options = await ff.openExtensionPage(`bridge/options/options.html?origin=${encodeURIComponent(site.origin)}`);
  await waitFor(() => options.evaluate('document.body.dataset.ready !== undefined'), { what: 'options page ready' });
  const rows = await waitFor(async () => {
    const r = await options.evaluate(`[...document.querySelectorAll('section.grant-group[data-group="browser"] li.grant')].map((li) => ({
      name: li.dataset.name, reason: li.querySelector('.reason')?.textContent || '', disabled: li.querySelector('input[type=radio]').disabled }))`);
    return r.length === 15 && r;
  }, { what: 'the Browser group' });
  const cannot = rows.filter((r) => r.reason).map((r) => r.name).sort();
  assert.deepEqual(cannot, ['browser.click', 'browser.double_click', 'browser.drag', 'browser.hover', 'browser.key', 'browser.read', 'browser.right_click', 'browser.screenshot', 'browser.scroll', 'browser.type']);
  for (const r of rows.filter((x) => x.reason)) {
    assert.match(r.reason, /^Cannot run here: this browser has no chrome\.debugger, which this tool needs/);
    assert.equal(r.disabled, true);
  }
  // The person lets this site use the Browser tools (Allow for the whole group), then starts it.
  await options.click('#group-browser-title');
  await options.click('section.grant-group[data-group="browser"] .group-set button[data-decision="allow"]');
  await armChat(ff, site.origin, { options });
});

test('the capability prompt offers what runs here and tells the model not to call the rest', async () => {
  const r = await options.evaluate(`chrome.runtime.sendMessage({ type: 'bridge.capabilityPrompt', origin: ${JSON.stringify(site.origin)} })`);
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.match(r.text, /^"browser\.list_tabs" \(List shared tabs\)/m);
  assert.match(r.text, /^"browser\.open_tab" /m);
  assert.doesNotMatch(r.text, /^"browser\.screenshot"/m);
  assert.match(r.text, /In this browser "browser\.click", .*"browser\.screenshot", .* cannot run: it has no chrome\.debugger/);
});

test('a tab shared from the sidebar\'s strip: listed, navigated, a new tab opened (shared at once) and closed, a wait', async () => {
  form = await ff.newTab(forms.url('/browser_form.html'));
  const sidebar = await ff.openExtensionPage('firefox/sidebar.html');
  // The strip is about the tab used last before the sidebar's own page.
  await form.activate();
  await sidebar.activate();
  const name = site.origin.replace(/^https?:\/\//, '');
  await waitFor(async () => (await sidebar.evaluate(`[...document.querySelectorAll('#tab-share button')].map((b) => b.textContent)`)).includes(`Share with ${name}`), { what: 'the Share button' });
  // The strip draws itself again as the tabs change: a click that met a button just replaced is made again.
  await waitFor(async () => {
    if ((await sidebar.text('#tab-share .chip')) === `Shared with ${name}`) return true;
    if ((await sidebar.text('#tab-share button')) === `Share with ${name}`) await sidebar.click('#tab-share button').catch(() => {});
    return false;
  }, { what: 'shared' });

  const listed = await run('browser.list_tabs', {});
  assert.equal(listed.ok, true, JSON.stringify(listed));
  const [tab] = listed.result.structuredContent.tabs;
  assert.match(tab.url, /\/browser_form\.html$/);
  assert.equal(listed.result.structuredContent.tabs.length, 1);

  const shot = await run('browser.screenshot', { tabId: tab.tabId });
  assert.equal(shot.code, 'EXECUTION_ERROR');
  assert.equal(shot.details.reason, 'unavailable');
  assert.match(shot.message, /^browser\.screenshot cannot run here: this browser has no chrome\.debugger/);

  const moved = await run('browser.navigate', { tabId: tab.tabId, url: forms.url('/browser_form.html?page=2') });
  assert.equal(moved.ok, true, JSON.stringify(moved));
  await waitFor(async () => (await form.evaluate('location.search')) === '?page=2', { what: 'the shared tab moved' });

  const opened = await run('browser.open_tab', { url: forms.url('/browser_form.html?new') });
  assert.equal(opened.ok, true, JSON.stringify(opened));
  const newId = opened.result.structuredContent.tabId;
  const both = await run('browser.list_tabs', {});
  assert.deepEqual(both.result.structuredContent.tabs.map((t) => t.tabId), [tab.tabId, newId], 'the new tab is shared at once');
  const closed = await run('browser.close_tab', { tabId: newId });
  assert.equal(closed.ok, true, JSON.stringify(closed));
  const after = await run('browser.list_tabs', {});
  assert.deepEqual(after.result.structuredContent.tabs.map((t) => t.tabId), [tab.tabId]);
  const waited = await run('browser.wait', { seconds: 0.2 });
  assert.equal(waited.ok, true);
});
