// Arming an origin: Start checks its settings and access, saves its grants,
// marks it armed and configures the content script in each of its tabs (and
// may write the capability prompt into one); Stop disarms it and aborts its
// running calls.
import { PRESET_MISMATCH, presetById } from '../core/presets.js';
import { toCss } from '../core/selector.js';
import { freshSafety } from '../core/guard.js';
import { normalizeSettings } from '../core/site_settings.js';
import { loadSettings, requireOrigin, setBadge, setLastEvent, sitePattern, tabsOf, updateArmed } from './site_state.js';
import { capabilityPrompt, writeGrants } from './host_queries.js';
import { abortCalls } from './call_runner.js';
import { formatReply, interruptedReply } from '../core/result_format.js';
import { workerStoppedWhile } from '../core/judge.js';
import { PAGE_LOADER } from '../core/page_scripts.js';
import { BRIDGE_PAGE } from '../../shared/core/messages.js';

/**
 * The content script's settings: the selectors (user input → CSS), the
 * timing, how images are attached, and the text to write (and the notice to show) should the worker go
 * away before the page learns which call it was running.
 */
function contentConfig(settings) {
  return {
    source: toCss(settings.source), destination: toCss(settings.destination),
    sendButton: toCss(settings.sendButton), sendWithEnter: !!settings.sendWithEnter, streaming: toCss(settings.streaming) || '', autoSend: !!settings.autoSend,
    debounceMs: settings.debounceMs, preset: presetById(settings.preset)?.id || '', presetMismatch: PRESET_MISMATCH,
    attachBy: settings.attachBy || '', attachTarget: toCss(settings.attachTarget) || '',
    lost: formatReply(interruptedReply(null), { maxChars: settings.maxChars }), lostWhy: workerStoppedWhile(null),
  };
}

export async function ensureContent(tabId) {
  await chrome.scripting.executeScript({ target: { tabId }, files: [PAGE_LOADER] });
}

/**
 * Arms one tab. The badge says armed before the page is configured, so what
 * the page reports at once (why the reply on it did not run) stays on it.
 */
export async function configureTab(tabId, origin, baseline) {
  const settings = await loadSettings(origin);
  await ensureContent(tabId);
  await setBadge(tabId, 'armed');
  try {
    await chrome.tabs.sendMessage(tabId, { type: BRIDGE_PAGE.CONFIGURE, config: contentConfig(settings), baseline });
  } catch (err) {
    await setBadge(tabId, 'error', err.message);
    throw err;
  }
}

export async function start(origin, grants, tabId) {
  requireOrigin(origin);
  const settings = await loadSettings(origin);
  const { errors } = normalizeSettings(settings, { requireSelectors: true });
  if (Object.keys(errors).length) return { ok: false, errors };
  if (!(await chrome.permissions.contains({ origins: [sitePattern(origin)] }))) {
    return { ok: false, error: `no access to ${origin}: allow it when Start asks` };
  }
  if (grants !== undefined) {
    const saved = await writeGrants(origin, grants);
    if (!saved.ok) return { ok: false, error: `could not save what this site may run: ${saved.error}` };
  }
  await updateArmed((armed) => { armed[origin] = true; }, { [`safety:${origin}`]: freshSafety() });
  await setLastEvent(origin, { kind: 'armed' });
  const failures = [];
  const tabs = await tabsOf(origin);
  for (const tab of tabs) {
    try {
      await configureTab(tab.id, origin, true);
    } catch (err) {
      failures.push(`tab ${tab.id}: ${err.message}`);
    }
  }
  if (!settings.promptOnStart) return { ok: true, armed: true, failures };
  // The capability prompt goes into the tab the person started from (else the
  // origin's most recently used one), after the grants it describes were saved.
  const target = tabs.find((t) => t.id === tabId) || [...tabs].sort((a, b) => (b.lastAccessed || 0) - (a.lastAccessed || 0))[0];
  const prompted = target ? await insertPrompt(target.id, origin) : { ok: false, error: 'no tab shows this page' };
  return { ok: true, armed: true, failures, prompted: !!prompted.ok, ...(prompted.ok ? { promptSummary: prompted.summary } : { promptError: prompted.error }) };
}

/**
 * Writes the capability prompt for origin into the tab's chat input (it is
 * not sent); choices are the options page's table when it sends them.
 */
export async function insertPrompt(tabId, origin, choices) {
  const prompt = await capabilityPrompt(origin, choices);
  if (!prompt.ok) return prompt;
  const settings = await loadSettings(origin);
  await ensureContent(tabId);
  const r = await chrome.tabs.sendMessage(tabId, { type: BRIDGE_PAGE.INSERT, text: prompt.text, destination: toCss(settings.destination) });
  return r?.ok ? { ...r, count: prompt.count, summary: prompt.summary } : r;
}

export async function stop(origin, reason) {
  // Disarmed and why, in one write: the options page never sees "Stopped" without its reason.
  const last = { ...(reason ? { kind: 'stopped', error: reason } : { kind: 'stopped' }), at: Date.now() };
  await updateArmed((armed) => { delete armed[origin]; }, { [`last:${origin}`]: last });
  abortCalls(origin);
  for (const tab of await tabsOf(origin)) {
    chrome.tabs.sendMessage(tab.id, { type: BRIDGE_PAGE.DISARM }).catch(() => {});
    await setBadge(tab.id, reason ? 'error' : 'off', reason);
  }
  return { ok: true, armed: false };
}
