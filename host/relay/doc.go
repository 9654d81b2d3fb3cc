// Package relay forwards the browser agent's model requests through the host.
//
// Some model gateways (a local Ollama, for one) answer 403 to requests that
// carry a chrome-extension:// Origin. The seed ran a loopback HTTP proxy for
// them; we need no port: the extension sends relay.fetch over native
// messaging, the host makes the request with its own HTTP client (outbound
// only, no Origin header) and streams the response body back as events, so
// Server-Sent Events arrive as they are produced.
//
// The relay is not an open proxy: only http and https URLs under the
// configured base URLs are allowed, or, with none configured, only
// Chat Completions and model-list endpoints. Request headers, and with them
// the API key, never reach a log; logged URLs have no query string.
package relay
