// Package relay forwards the browser agent's model requests through the host.
//
// Some model gateways (a local Ollama, for one) answer 403 to requests that
// carry a chrome-extension:// Origin. The relay needs no listening port for
// them: the extension sends relay.fetch over native
// messaging, the host makes the request with its own HTTP client (outbound
// only, no Origin header) and streams the response body back as events, so
// Server-Sent Events arrive as they are produced.
//
// The relay is not an open proxy: only http and https URLs under the
// configured base URLs are allowed, or, with none configured, only
// Chat Completions and model-list endpoints. It judges the address each
// connection is opened to (after name resolution, in the dialer): loopback
// and public addresses pass, private ones only for origins listed in
// relay.allow, link-local, metadata, unspecified and multicast ones never;
// environment proxies, which would connect out of its sight, are not used.
// One request never leaves the origin it names: a redirect elsewhere is
// handed back as the reply, so Authorization and the body stay with that
// origin, and no Referer is sent. Credentials, query strings and bodies never
// reach an info-level log; debug logs redact them.
package relay
