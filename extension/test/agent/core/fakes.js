// Fakes of the agent session's two sides for the unit tests: a browser that
// logs what it is asked to do, and a model that answers from a script.
// Shared by session.test.js and task_pipeline.test.js.

/**
 * A browser on one tab: every call is logged as [name, arg]; observations
 * number their screenshots IMG1, IMG2, ….
 */
export function fakeBrowser({ log = [], tabId = 1 } = {}) {
  let shot = 0;
  return {
    log,
    // The run's signal goes with every start (a question the surface asks ends with it); the log keeps the rest.
    async start({ signal, ...opts } = {}) { log.push(['start', opts]); if (!(signal instanceof AbortSignal)) throw new Error('start without the run\'s signal'); return { tabId, url: 'https://a.example/', title: 'A' }; },
    async observe() { shot++; log.push(['observe']); return { image: `IMG${shot}`, mime: 'image/jpeg', viewport: { width: 800, height: 600 }, url: 'https://a.example/', title: 'A' }; },
    async act(action) { log.push(['act', action.name]); return { text: `did ${action.name}` }; },
    async stop() { log.push(['stop']); },
  };
}

/**
 * A model that answers the n-th request with replies[n - 1]: a string (with
 * usage), or a function of (request, options) for anything else.
 */
export function fakeModel(replies) {
  const requests = [];
  return {
    requests,
    async complete(req, opts) {
      requests.push(req);
      const r = replies[requests.length - 1];
      if (typeof r === 'function') return r(req, opts);
      if (r === undefined) throw new Error('no scripted reply');
      return { content: r, usage: { prompt_tokens: 10 } };
    },
  };
}
