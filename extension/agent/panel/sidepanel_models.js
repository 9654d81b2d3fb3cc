// The Side Panel's connections: the model client for each Connection setting
// and the request to gnosis-host's methods.

import { createModelClient } from '../core/model_client.js';
import { createProxiedRequest } from '../../shared/host_proxy.js';
import { createRelayFetch } from '../core/relay_client.js';

const model = createModelClient();
// Host methods go through the service worker's one native port (shared/host_proxy.js).
export const hostRequest = createProxiedRequest();
// "Connection: via gnosis-host": the same client over relay.fetch (no Origin header reaches the gateway).
const relayModel = createModelClient({ fetch: createRelayFetch({ request: hostRequest }) });

/** The model client for settings s. */
export const modelFor = (s) => (s.connection === 'host' ? relayModel : model);
