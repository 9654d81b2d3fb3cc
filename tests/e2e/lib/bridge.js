// Helpers for driving the chat bridge the way a person does: through the
// options page's labelled controls.
import { waitFor } from './harness.js';
import { BRIDGE_PAGE } from '../../../extension/shared/core/messages.js';

/**
 * Waits until the bridge watches page: its content script holds the origin's
 * settings. A tab of an armed origin is configured once it has loaded, and a
 * reply already on the page then is an old one, not run; the toolbar badge
 * says armed just before. So a test that opens a tab and streams a call
 * waits for this first.
 */
export function armedIn(env, page) {
  return waitFor(() => env.evalInWorker(async ({ url, ping }) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === url);
    if (!tab) return false;
    try {
      return (await chrome.tabs.sendMessage(tab.id, { type: ping }))?.armed === true;
    } catch {
      return false; // no content script yet
    }
  }, { url: page.url(), ping: BRIDGE_PAGE.PING }), { what: `the bridge watching ${page.url()}` });
}

/**
 * Opens the options page (after the chat page, so it is "the current page"),
 * fills the labelled fields and clicks Start. Returns the options page.
 * @param {object} env from launch()
 * @param {object} s {source, destination, autoSend, sendButton, debounceMs, maxConsecutive}
 */
export async function armFromOptions(env, s, { options } = {}) {
  const page = options || await env.openOptions();
  await page.locator('body[data-ready]').waitFor();
  await page.getByLabel('Extract from', { exact: true }).fill(s.source);
  await page.getByLabel('Inject into', { exact: true }).fill(s.destination);
  const auto = page.getByLabel('Auto-send', { exact: true });
  if (s.autoSend) await auto.check(); else await auto.uncheck();
  await page.getByLabel('Send button', { exact: true }).fill(s.sendButton || '');
  if (s.debounceMs || s.maxConsecutive) {
    await openTimingFold(page);
    if (s.debounceMs) await page.getByLabel('Settle delay (ms)', { exact: true }).fill(String(s.debounceMs));
    if (s.maxConsecutive) await page.getByLabel('Tool calls without you', { exact: true }).fill(String(s.maxConsecutive));
  }
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await page.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed state' });
  return page;
}

/**
 * Opens the options page's "Timing and safety" fold as a person does, by its
 * summary, until the field inside shows (on a loaded machine a click landed
 * while the page above it was still laying out, and the fold stayed shut).
 */
export async function openTimingFold(page, field = 'Settle delay (ms)') {
  const summary = page.locator('summary', { hasText: 'Timing and safety' });
  const inside = page.getByLabel(field, { exact: true });
  await waitFor(async () => {
    if (await inside.isVisible()) return true;
    await summary.click();
    return inside.isVisible();
  }, { what: 'the Timing and safety fold open' });
}

/** The chat page's sent messages (window.chat.sent). */
export function sent(chat) {
  return chat.evaluate(() => window.chat.sent);
}

/** Waits until the chat page has sent n messages; returns them. */
export function waitForSent(chat, n, timeoutMs = 20_000) {
  return waitFor(async () => {
    const s = await sent(chat);
    return s.length >= n ? s : null;
  }, { timeoutMs, what: `${n} sent chat messages` });
}

/** The toolbar badge of the tab showing url: {text, title}. */
export async function badgeOf(env, url) {
  return env.evalInWorker(async (u) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
    return { text: await chrome.action.getBadgeText({ tabId: tab.id }), title: await chrome.action.getTitle({ tabId: tab.id }) };
  }, url);
}

/** The toolbar badge text of the tab showing url. */
export async function badgeText(env, url) {
  return (await badgeOf(env, url)).text;
}

/**
 * Opens the options page on the newest chat tab, waits until it has filled in
 * the preset it says (`preset: <name>`), sets the settle delay and clicks Start.
 */
export async function armPreset(env, name, { debounceMs = 300, options } = {}) {
  const page = options || await env.openOptions();
  await page.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await page.locator('#preset-state').textContent()) === `preset: ${name}`, { what: `preset: ${name}` });
  await openTimingFold(page);
  const delay = page.getByLabel('Settle delay (ms)', { exact: true });
  await delay.fill(String(debounceMs));
  await delay.dispatchEvent('change');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await page.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed state' });
  return page;
}

/**
 * The bridge's last acknowledgment for origin: {count, index, action,
 * reason} — how many extracted messages it has judged, and the last one's
 * index among the page's messages (1 for the first) and verdict; null
 * before any. A "nothing ran" check made once the bridge has judged the
 * message in question cannot pass merely because the machine was slow.
 */
export async function lastAck(env, origin) {
  const got = await env.evalInWorker((o) => chrome.storage.session.get(`ack:${o}`), origin);
  return got?.[`ack:${origin}`] || null;
}

/** How many extracted messages of origin the bridge has judged so far. */
export async function ackCount(env, origin) {
  return (await lastAck(env, origin))?.count || 0;
}

/**
 * Waits until the bridge has judged a message of origin after the first
 * `after` ones, and that message is at index or later; returns the verdict.
 */
export async function judged(env, origin, { after = 0, index = 0 } = {}) {
  return waitFor(async () => {
    const ack = await lastAck(env, origin);
    return ack && ack.count > after && ack.index >= index ? ack : null;
  }, { what: `the bridge's verdict on a message of ${origin} (after ${after}, index ≥ ${index})`, timeoutMs: 15_000 });
}

/**
 * Streams a prose reply into the fixture chat and waits until the bridge has
 * judged it. The content script sends one message at a time, in order, so
 * every earlier message was judged too.
 */
export async function judgedUpTo(env, origin, chat) {
  const after = await ackCount(env, origin);
  const index = await chat.evaluate(() => window.chat.stream('Noted.').then(() => document.querySelectorAll('.assistant').length));
  return judged(env, origin, { after, index });
}

/** Waits until the host reports n providers, all ready (the grants table lists what the host has when the page loads). */
export function waitForProviders(page, n, timeoutMs = 30_000) {
  return waitFor(async () => {
    const r = await page.evaluate(() => chrome.runtime.sendMessage({ type: 'bridge.hostStatus', refresh: true }));
    return r.health?.providers?.length === n && r.health.providers.every((p) => p.state === 'ready');
  }, { what: `${n} providers ready`, timeoutMs });
}

/**
 * A site's settings as the worker keeps them: in the trusted store (the
 * extension origin's IndexedDB "gnosis-trusted", extension/shared/trusted_store.js),
 * where no content script can write them.
 */
export function storedSettings(env, origin) {
  return env.evalInWorker((o) => new Promise((resolve, reject) => {
    const req = indexedDB.open('gnosis-trusted', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('values');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const get = req.result.transaction('values').objectStore('values').get(`site:${o}`);
      get.onsuccess = () => resolve(get.result);
      get.onerror = () => reject(get.error);
    };
  }), origin);
}
