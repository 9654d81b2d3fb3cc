// The one shared connection to gnosis-host for the whole service worker: the
// chat bridge and the browser agent both import `host` from here, so there is
// exactly one native port and one process. Thin glue over native_client.js;
// a host whose protocol this extension does not speak gets nothing but
// health (shared/core/protocol.js).
import { NativeClient } from './native_client.js';
import { incompatibility } from './core/protocol.js';

/** Native messaging host name (manifests/com.gnosis.host.json). */
export const HOST_NAME = 'com.gnosis.host';

/** What a refused request's error tells the person to do. */
const UPDATE_ADVICE = "The extension's setup page (and the options page's Host section) says which side to update and how.";

/**
 * The shared client. API: host.request(method, params, {timeoutMs, onEvent,
 * signal}) → Promise<reply>; host.on(event, fn); host.status(); host.health().
 */
export const host = new NativeClient(() => chrome.runtime.connectNative(HOST_NAME), {
  lastError: () => chrome.runtime.lastError?.message,
  compatible(health) {
    const why = incompatibility(health, { extensionVersion: chrome.runtime.getManifest().version });
    return why && { message: why.message, advice: UPDATE_ADVICE };
  },
});
