// The agent loop: screenshot -> request -> parse -> execute -> repeat.
//
// It runs in the Side Panel page, so closing the panel ends it. The browser
// side (attach, screenshot, input) is behind the `browser` interface
// (panel/browser_bridge.js talks to the service worker); the model behind `model`
// (model_client.js). Both are injected, so the loop is tested with fakes.
//
// Hooks (the side panel sets them):
//   buildMessages(ctx) -> messages   replaces prompt.js's builder (bounded context, summary, images)
//   onRecord(record)                 every task, analysis, action, result and outcome as it happens, in
//                                    conversation_store.js's record kinds (task, user, analysis, action,
//                                    result, outcome, note), without screenshots
//   beforeRequest(ctx)               may add ctx.warnings lines (workspace inventory after a file chooser);
//                                    awaited, with ctx.signal for work of its own (a compaction inside the task)

import { parseReply, formatAction } from './action_parser.js';
import { buildMessages as defaultBuildMessages, coordinateRules, fillTemplate, LOOP_WARNING, MAX_SCREENSHOTS, reaskMessage } from './prompt.js';
import { stoppedError } from './model_client.js';
import { usageOrEstimate } from './token_estimate.js';

/** Largest pixel coordinate accepted in the 'absolute' coordinate mode. */
const ABSOLUTE_MAX = 20000;

/**
 * Resolves or rejects like promise, but rejects with stoppedError() as soon
 * as signal aborts, so a Stop never waits for a browser call to finish (the
 * call itself is stopped by browser.stop()).
 */
export function untilAborted(promise, signal) {
  if (signal.aborted) return Promise.reject(stoppedError());
  return new Promise((resolve, reject) => {
    const stop = () => reject(stoppedError());
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** How a run ended. */
export const OUTCOME = Object.freeze({ FINISHED: 'finished', CALL_USER: 'call_user', STOPPED: 'stopped', STEP_LIMIT: 'step_limit', ERROR: 'error' });

export class AgentSession {
  /**
   * @param {object} o
   * @param {{start(opts):Promise<object>, observe():Promise<object>, act(action):Promise<object>, stop():Promise<void>}} o.browser
   * @param {{complete(req, opts):Promise<{content, usage}>}} o.model
   * @param {string} o.template system prompt template
   * @param {object} o.config validated config: {settings, endpoint, loopback, apiKey, origin}
   * @param {(event:object) => void} [o.onEvent] UI updates
   * @param {Function} [o.buildMessages]
   * @param {Function} [o.onRecord]
   * @param {Function} [o.beforeRequest]
   * @param {() => Date} [o.now]
   */
  constructor(o) {
    Object.assign(this, {
      browser: o.browser,
      model: o.model,
      template: o.template,
      config: o.config,
      onEvent: o.onEvent || (() => {}),
      buildMessages: o.buildMessages || defaultBuildMessages,
      onRecord: o.onRecord || (() => {}),
      beforeRequest: o.beforeRequest || (() => {}),
      now: o.now || (() => new Date()),
    });
    this.task = '';
    this.history = [];
    this.step = 0;
    this.usage = [];
    this.running = false;
    this.waitingForUser = false;
    this.lastReply = null;
    this.abort = null;
    this.target = null;
  }

  /** Starts a task; resolves with {outcome, answer?, question?, error?}. */
  async run(task, startOpts = {}) {
    this.task = String(task).trim();
    this.history = [];
    this.step = 0;
    this.lastReply = null;
    this.record({ kind: 'task', text: this.task });
    return this.drive(startOpts);
  }

  /**
   * Continues the same task after CallUser with the user's reply. extra goes
   * to the record (images attached with the answer); opts to browser.start
   * (preferTabId: the tab the question was asked on, after a reopen).
   */
  async reply(text, { extra = {}, ...opts } = {}) {
    if (!this.waitingForUser) throw new Error('the agent is not waiting for an answer');
    this.waitingForUser = false;
    this.history.push({ kind: 'user', text });
    this.record({ kind: 'user', text, ...extra });
    return this.drive({ resume: true, ...opts });
  }

  /**
   * Restores a task that was waiting for the user's answer (the panel was
   * closed after CallUser): its text, its step count and the tab it was on.
   */
  restoreWaiting({ task, step = 0, tabId }) {
    this.task = String(task);
    this.history = [];
    this.step = step;
    this.lastReply = null;
    this.lastTabId = tabId;
    this.waitingForUser = true;
  }

  /** Stops at once: aborts the request in flight and detaches the debugger. */
  stop() {
    this.waitingForUser = false;
    if (!this.running) return;
    this.abort?.abort();
    this.browser.stop().catch(() => {});
  }

  record(r) {
    try { this.onRecord({ ...r, at: this.now().toISOString() }); } catch { /* the store must not break the loop */ }
  }

  emit(e) {
    try { this.onEvent(e); } catch { /* the UI must not break the loop */ }
  }

  async drive(startOpts) {
    if (this.running) throw new Error('a task is already running');
    this.running = true;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    let result;
    try {
      this.target = await untilAborted(this.browser.start(startOpts), signal);
      this.lastTabId = this.target?.tabId;
      this.emit({ type: 'attached', target: this.target });
      result = await this.loop(signal);
    } catch (err) {
      if (signal.aborted || err?.code === 'stopped') result = { outcome: OUTCOME.STOPPED };
      else result = { outcome: OUTCOME.ERROR, error: String(err?.message || err) };
    } finally {
      this.running = false;
      await this.browser.stop().catch(() => {});
    }
    if (result.outcome === OUTCOME.CALL_USER) this.waitingForUser = true;
    // A question keeps the tab it was asked on, so an answer after a reopen continues there.
    const where = result.outcome === OUTCOME.CALL_USER && this.lastTabId !== undefined ? { tabId: this.lastTabId } : {};
    this.record({ kind: 'outcome', outcome: result.outcome, text: result.answer ?? result.question ?? result.error ?? '', ...where });
    this.emit({ type: 'end', ...result });
    return result;
  }

  async loop(signal) {
    const { settings } = this.config;
    for (;;) {
      if (signal.aborted) throw stoppedError();
      if (this.step >= settings.maxSteps) return { outcome: OUTCOME.STEP_LIMIT, error: `stopped after the step limit of ${settings.maxSteps}` };
      this.step++;
      const step = this.step;
      this.emit({ type: 'step', step, phase: 'observe' });
      const observation = await untilAborted(this.browser.observe(), signal);
      if (observation.tabId !== undefined) this.lastTabId = observation.tabId;
      if (signal.aborted) throw stoppedError();
      const warnings = [];
      if (this.repeated) warnings.push(LOOP_WARNING);
      // Lines the browser side queued for this request (the workspace inventory, a pending download).
      for (const n of observation.notes || []) warnings.push(n);
      const previousScreenshots = this.history.filter((e) => e.kind === 'round' && e.observation.image)
        .slice(-(MAX_SCREENSHOTS - 1)).map((e) => ({ step: e.step, image: e.observation.image, mime: e.observation.mime }));
      // The coordinate sentence is filled here so any builder (prompt.js, the
      // context manager) only needs date, task and viewport.
      const template = fillTemplate(this.template, { coordinate_rules: coordinateRules(settings.coordinateMode, observation.viewport) });
      const ctx = { template, now: this.now(), task: this.task, history: this.history, previousScreenshots, current: observation, warnings, step, maxSteps: settings.maxSteps, coordinateMode: settings.coordinateMode, usage: this.usage.at(-1) || null, signal };
      await this.beforeRequest(ctx);
      if (signal.aborted) throw stoppedError();
      const messages = this.buildMessages(ctx);
      this.lastRequest = messages;
      this.emit({ type: 'step', step, phase: 'request' });
      let reply = await this.ask(messages, step, signal);
      const parseOpts = { maxCoord: settings.coordinateMode === 'absolute' ? ABSOLUTE_MAX : undefined };
      let parsed = parseReply(reply, parseOpts);
      if (!parsed.ok) {
        this.emit({ type: 'parse_error', step, error: parsed.error, reply, retrying: true });
        const again = [...messages, { role: 'assistant', content: reply }, { role: 'user', content: reaskMessage(parsed.error) }];
        reply = await this.ask(again, step, signal);
        parsed = parseReply(reply, parseOpts);
      }
      this.repeated = this.lastReply !== null && reply.trim() === this.lastReply.trim();
      this.lastReply = reply;
      const round = { kind: 'round', step, observation, reply, result: '' };
      this.history.push(round);
      this.dropOldImages();
      if (!parsed.ok) {
        round.result = `invalid reply, nothing was done: ${parsed.error}`;
        this.record({ kind: 'note', step, text: `step ${step}: unusable reply (${parsed.error}): ${reply.slice(0, 500)}` });
        this.emit({ type: 'step_failed', step, error: parsed.error, reply });
        continue;
      }
      const { action, think } = parsed;
      const actionText = formatAction(action);
      this.record({ kind: 'analysis', step, text: think });
      this.record({ kind: 'action', step, text: actionText, usage: this.usage.at(-1) || null });
      this.emit({ type: 'action', step, think, action, actionText });
      if (action.name === 'Finished') {
        round.result = 'task finished';
        return { outcome: OUTCOME.FINISHED, answer: action.args.content || '' };
      }
      if (action.name === 'CallUser') {
        round.result = 'waiting for the user';
        return { outcome: OUTCOME.CALL_USER, question: action.args.content };
      }
      this.emit({ type: 'step', step, phase: 'act' });
      const res = await untilAborted(this.browser.act(action), signal);
      if (signal.aborted) throw stoppedError();
      round.result = res.text;
      this.record({ kind: 'result', step, text: res.text, error: Boolean(res.error) });
      this.emit({ type: 'result', step, result: res.text, error: Boolean(res.error) });
    }
  }

  /** One model request; its usage (reported or estimated) goes to this.usage and the 'usage' event. */
  async ask(messages, step, signal) {
    const c = this.config;
    const r = await this.model.complete({
      endpoint: c.endpoint,
      apiKey: c.apiKey,
      model: c.settings.model,
      messages,
      temperature: c.settings.temperature,
      loopback: c.loopback,
      origin: c.origin,
      timeoutMs: c.settings.requestTimeoutMs,
      retryBaseMs: c.settings.retryBaseMs,
      retryMaxMs: c.settings.retryMaxMs,
    }, {
      signal,
      onDelta: (piece, full) => this.emit({ type: 'delta', step, text: full }),
      onRetry: (info) => this.emit({ type: 'retry', step, ...info }),
    });
    // A server that reports no usage still gets a meter and compaction: the size is estimated.
    const usage = usageOrEstimate(r.usage, messages, r.content);
    this.usage.push(usage);
    this.emit({ type: 'usage', step, usage });
    return r.content;
  }

  // Older screenshots are never sent again; free their memory.
  dropOldImages() {
    const rounds = this.history.filter((e) => e.kind === 'round');
    for (const r of rounds.slice(0, -(MAX_SCREENSHOTS - 1))) {
      if (r.observation.image) r.observation = { ...r.observation, image: undefined };
    }
  }
}
