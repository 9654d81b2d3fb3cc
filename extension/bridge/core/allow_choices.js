// The approval window's three ways to allow a call, and where the worker keeps
// the choices that outlive the call: "for this session" in storage.session,
// "always" (written into the host's policy) noted in storage.local so "Ask for
// everything again" knows which allows the window made. The worker
// (bridge/worker/remembered_choices.js) writes them; the options page follows them. Pure.

/** This once, for the rest of the session, always on this site. */
export const REMEMBER = Object.freeze({ ONCE: 'once', SESSION: 'session', ALWAYS: 'always' });

/** storage.session: {capability: {at, entry}} of an origin's "allow for this session" choices. */
export const sessionKey = (origin) => `remember:${origin}`;

/** storage.local: {capability: {at, entry}} of the tools the approval window set to allow for an origin. */
export const alwaysKey = (origin) => `always:${origin}`;
