// Helpers for driving the chat bridge the way a person does: through the
// options page's labelled controls.
import { waitFor } from './harness.js';

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
    await page.locator('summary', { hasText: 'Timing and safety' }).click();
    if (s.debounceMs) await page.getByLabel('Settle delay (ms)', { exact: true }).fill(String(s.debounceMs));
    if (s.maxConsecutive) await page.getByLabel('Tool calls without you', { exact: true }).fill(String(s.maxConsecutive));
  }
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await page.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed state' });
  return page;
}

/** The chat page's sent messages (window.chat.sent). */
export function sent(chat) {
  return chat.evaluate(() => window.chat.sent);
}

/** Waits until the chat page has sent n messages; returns them. */
export function waitForSent(chat, n, timeoutMs = 10_000) {
  return waitFor(async () => {
    const s = await sent(chat);
    return s.length >= n ? s : null;
  }, { timeoutMs, what: `${n} sent chat messages` });
}

/** The toolbar badge text of the tab showing url. */
export async function badgeText(env, url) {
  return env.evalInWorker(async (u) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
    return chrome.action.getBadgeText({ tabId: tab.id });
  }, url);
}

/**
 * Opens the options page on the newest chat tab, waits until it has filled in
 * the preset it says (`preset: <name>`), sets the settle delay and clicks Start.
 */
export async function armPreset(env, name, { debounceMs = 300, options } = {}) {
  const page = options || await env.openOptions();
  await page.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await page.locator('#preset-state').textContent()) === `preset: ${name}`, { what: `preset: ${name}` });
  await page.locator('summary', { hasText: 'Timing and safety' }).click();
  const delay = page.getByLabel('Settle delay (ms)', { exact: true });
  await delay.fill(String(debounceMs));
  await delay.dispatchEvent('change');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await page.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed state' });
  return page;
}
