// The one shared connection to gnosis-host for the whole service worker: the
// chat bridge and the browser agent both import `host` from here, so there is
// exactly one native port and one process. Thin glue over native_client.js.
import { NativeClient } from './native_client.js';

/** Native messaging host name (manifests/com.gnosis.host.json). */
export const HOST_NAME = 'com.gnosis.host';

/**
 * The shared client. API: host.request(method, params, {timeoutMs, onEvent,
 * signal}) → Promise<reply>; host.on(event, fn); host.status(); host.health().
 */
export const host = new NativeClient(() => chrome.runtime.connectNative(HOST_NAME), {
  lastError: () => chrome.runtime.lastError?.message,
});
