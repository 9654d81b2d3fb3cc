// The setup page's worker half: the host's MCP servers (providers.list, set,
// remove and check, with a check cancellable from the page), the diagnostic
// report (the host's report method under the extension's own lines), the
// release download location (extension settings: a fork's or a mirror's),
// and opening the setup page on install, or on an update that changed the
// protocols the extension speaks. Every handler here is `from: 'extension'`:
// a content script, which any web page can talk to, may not add a program
// for the host to run, nor read the report. Host replies and transport
// failures both come back as {ok: false, code, error, details?}.
import { host } from '../../shared/host.js';
import { PROTOCOL } from '../../shared/core/protocol.js';
import { METHODS } from '../../shared/core/methods.js';
import { DEFAULT_LOCATION, checkLocation, safeLocation } from '../../shared/core/host_install.js';
import { BRIDGE, HOST_CARD } from '../../shared/core/messages.js';
import { PROVIDER_FIELDS, opensSetup } from '../core/setup_rules.js';
import { diagnosticReport } from '../core/diagnostic.js';
import { hostStatus } from './host_queries.js';
import { adoptFromLocal, trustedRemove, trustedSet } from '../../shared/trusted_store.js';

/** The setup page, relative to the extension's root. */
export const SETUP_PAGE = 'bridge/setup/setup.html';

/**
 * The download location the user set on an extension page, in the trusted
 * store (shared/trusted_store.js: no content script can write it, Firefox's
 * included); and, in chrome.storage.local, the protocols of the last install
 * or update.
 */
const LOCATION_KEY = 'setup:downloadLocation';
const PROTOCOL_KEY = 'setup:protocol';

/** Checks in flight, by the page's token, so the page can cancel one. */
const checks = new Map();

/** A host method's reply, or a transport failure, in one shape for the pages. */
async function ask(method, params, opts) {
  try {
    const reply = await host.request(method, params, opts);
    return reply.ok ? reply : { ok: false, code: reply.code, error: reply.message, ...(reply.details ? { details: reply.details } : {}) };
  } catch (err) {
    return { ok: false, code: err.code, error: String(err.message || err) };
  }
}

/** Only the fields providers.set and providers.check take; the host checks each. */
function providerFields(p) {
  const out = {};
  for (const k of PROVIDER_FIELDS) if (p && Object.hasOwn(p, k)) out[k] = p[k];
  return out;
}

/** The download location, checked again on every read (an https folder, or http on this machine). */
async function location() {
  const saved = await adoptFromLocal(LOCATION_KEY);
  const stored = typeof saved === 'string' && safeLocation(saved) ? saved : '';
  return { location: stored || DEFAULT_LOCATION, isDefault: !stored, defaultLocation: DEFAULT_LOCATION };
}

/** The browser's name and full version, as the report states it. */
async function browserName() {
  const ua = navigator.userAgentData;
  try {
    const { fullVersionList } = await ua.getHighEntropyValues(['fullVersionList']);
    const brand = fullVersionList.find((b) => !/Not.?A.?Brand/i.test(b.brand) && b.brand !== 'Chromium') || fullVersionList.find((b) => b.brand === 'Chromium');
    if (brand) return `${brand.brand} ${brand.version}`;
  } catch {
    // not a Chromium browser, or no client hints: the user agent says it
  }
  return navigator.userAgent;
}

async function report() {
  const [status, where, platform, self, browser] = await Promise.all([
    hostStatus(true), location(), chrome.runtime.getPlatformInfo(), chrome.management?.getSelf?.().catch(() => null), browserName(),
  ]);
  let hostReport = '';
  let hostReportError = '';
  if (status.health?.ok) {
    const r = await ask(METHODS.REPORT, {}, { timeoutMs: 20_000 });
    if (r.ok) hostReport = String(r.text || '');
    else hostReportError = r.error;
  } else {
    hostReportError = status.error?.message || 'the host did not answer';
  }
  const text = diagnosticReport({
    extensionVersion: chrome.runtime.getManifest().version, installType: self?.installType, range: PROTOCOL, browser, platform,
    location: where.location, defaultLocation: where.isDefault, host: status, hostReport, hostReportError,
  });
  return { ok: true, text, hostIncluded: !!hostReport };
}

/** Message handlers, merged into the bridge's map (bridge_worker.js). */
export const handlers = {
  [BRIDGE.PROVIDERS]: { from: 'extension', run: () => ask(METHODS.PROVIDERS_LIST, {}, { timeoutMs: 10_000 }) },
  [BRIDGE.SET_PROVIDER]: { from: 'extension', run: ({ provider }) => ask(METHODS.PROVIDERS_SET, providerFields(provider), { timeoutMs: 30_000 }) },
  [BRIDGE.REMOVE_PROVIDER]: { from: 'extension', run: ({ name }) => ask(METHODS.PROVIDERS_REMOVE, { name }, { timeoutMs: 30_000 }) },
  [BRIDGE.CHECK_PROVIDER]: {
    from: 'extension',
    async run({ token, provider }) {
      const ac = new AbortController();
      if (token) checks.set(String(token), ac);
      const params = providerFields(provider);
      // The host gives the server its startTimeout (default 30 s) and stops it: wait that long and a little more.
      const seconds = Number(params.startTimeout) > 0 ? Number(params.startTimeout) : 30;
      try {
        return await ask(METHODS.PROVIDERS_CHECK, params, { timeoutMs: (seconds + 15) * 1000, signal: ac.signal });
      } finally {
        if (token) checks.delete(String(token));
      }
    },
  },
  [BRIDGE.CANCEL_CHECK]: {
    from: 'extension',
    run({ token }) {
      const ac = checks.get(String(token));
      ac?.abort();
      return { ok: true, cancelled: !!ac };
    },
  },
  [HOST_CARD.DIAGNOSTIC_REPORT]: { from: 'extension', run: () => report() },
  [HOST_CARD.GET_DOWNLOAD_LOCATION]: { from: 'extension', run: async () => ({ ok: true, ...(await location()) }) },
  [HOST_CARD.SET_DOWNLOAD_LOCATION]: {
    from: 'extension',
    async run({ location: text }) {
      const s = String(text || '').trim();
      if (!s || s === DEFAULT_LOCATION) {
        await trustedRemove(LOCATION_KEY);
      } else {
        const error = checkLocation(s);
        if (error) return { ok: false, error };
        await trustedSet(LOCATION_KEY, s);
      }
      return { ok: true, ...(await location()) };
    },
  },
};

/** Opens the setup page on install, and on an update that changed the protocols the extension speaks. */
export function initSetup() {
  chrome.runtime.onInstalled.addListener(async ({ reason }) => {
    if (reason !== 'install' && reason !== 'update') return;
    const { [PROTOCOL_KEY]: seen } = await chrome.storage.local.get(PROTOCOL_KEY);
    await chrome.storage.local.set({ [PROTOCOL_KEY]: { min: PROTOCOL.min, max: PROTOCOL.max } });
    if (opensSetup(reason, seen, PROTOCOL)) {
      await chrome.tabs.create({ url: chrome.runtime.getURL(SETUP_PAGE) + (reason === 'update' ? '?updated=1' : '') });
    }
  });
}
