// Whether the agent follows a tab the page opened during a task. Like the
// first tab, it must be an http:// or https:// page: a page can open
// about:blank (then write into it), a blob: or data: document, or a
// browser page, and none of them is the agent's to drive. A refusal is said
// in words the panel shows and the model reads. Pure: no chrome.*.

const WEB = /^https?:\/\//i;

/** How long a new tab may stay blank before its address is taken as final (ms). */
export const BLANK_GRACE_MS = 1000;

/** The address a tab is going to (pendingUrl) or shows. */
export function tabAddress(tab) {
  return String(tab?.pendingUrl || tab?.url || '');
}

/** True while a new tab has no address of its own yet (it may still be given one). */
export function stillBlank(tab) {
  const a = tabAddress(tab);
  return a === '' || a === 'about:blank';
}

/** An address shortened for a sentence: the scheme and at most 80 characters. */
export function shownAddress(address) {
  const a = String(address || '') || 'about:blank';
  return a.length > 80 ? `${a.slice(0, 79)}…` : a;
}

/**
 * The verdict on a tab opened during a task.
 * @param {{url?: string, pendingUrl?: string}|null} tab
 * @returns {{follow: true}|{follow: false, note: string}}
 */
export function followVerdict(tab) {
  if (!tab) return { follow: false, note: 'The page opened a tab that closed at once; the agent stays on this tab.' };
  const address = tabAddress(tab);
  if (WEB.test(address)) return { follow: true };
  return {
    follow: false,
    note: `The page opened a new tab (${shownAddress(address)}); the agent controls only http:// or https:// pages, so it did not follow it and stays on this tab.`,
  };
}
