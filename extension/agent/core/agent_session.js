// The agent loop: screenshot -> request -> parse -> execute -> repeat.
//
// It runs in the Side Panel page, so closing the panel ends it. The browser
// side (attach, screenshot, input) is behind the `browser` interface
// (the panel's link to the service worker, core/panel_contract.js); the model behind `model`
// (model_client.js). Both are injected, so the loop is tested with fakes.
//
// Stop shows its outcome at once: the 'end' event goes out as soon as the
// loop has stopped, and the browser is let go (browser.stop()) after it; the
// next start waits for that. Pause (the user takes over the tab) stops the
// step in flight the same way and lets the tab go; Resume records that the
// user acted on the page and goes on with a fresh screenshot.
//
// Hooks (the side panel sets them):
//   buildMessages(ctx) -> messages   replaces prompt.js's builder (bounded context, summary, images)
//   onRecord(record)                 every task, analysis, action, result and outcome as it happens, in
//                                    conversation_store.js's record kinds (task, user, analysis, action,
//                                    result, outcome, note), without screenshots
//   beforeRequest(ctx)               may add ctx.warnings lines (workspace inventory after a file chooser);
//                                    awaited, with ctx.signal for work of its own (a compaction inside the task)

import { parseReply, formatAction } from './action_parser.js';
import { INTERRUPTED_RESULT, WORKER_STOPPED, interruptedText } from './worker_stop.js';
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

/**
 * How a run ended. INTERRUPTED is never returned by a run: the panel records
 * it for a task whose panel closed while it ran (task_pipeline.js). PAUSED is
 * the return of a run the user paused; the task goes on with resume().
 */
export const OUTCOME = Object.freeze({ FINISHED: 'finished', CALL_USER: 'call_user', STOPPED: 'stopped', STEP_LIMIT: 'step_limit', ERROR: 'error', INTERRUPTED: 'interrupted', PAUSED: 'paused' });

/** The note the next request carries after the user paused the task, acted on the page and resumed it. */
export function userActedNote(step) {
  return `The user paused the task during step ${step}, acted on the page by hand and resumed it. The page may have changed: look at the current screenshot before you go on.`;
}

/** The result recorded for an action the user interrupted (Stop or Pause) while it ran. */
export function interruptedResult(how) {
  return how === 'pause' ? 'interrupted: the user paused the task while this action ran; it may not have finished' : 'interrupted: the user stopped the task while this action ran';
}

export class AgentSession {
  /**
   * @param {object} o
   * @param {{start(opts):Promise<object>, observe():Promise<object>, act(action, {step, signal}):Promise<object>, stop():Promise<void>}} o.browser
   *   start's opts and act's carry the run's signal (a question the surface asks ends with it)
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
    this.paused = false;
    /** The step a pause came in (what Resume and a Stop while paused say). */
    this.pausedAt = 0;
    /** What a stop or pause interrupts: the phase of the step in flight ('observe', 'request', 'act'). */
    this.phase = '';
    /** Settles once the browser was let go after the last run (browser.stop()). */
    this.released = Promise.resolve();
    /** Set by pause() until the run it interrupts has ended. */
    this.pauseRequested = false;
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

  /**
   * Stops at once: aborts the request or action in flight (the run's 'end'
   * event follows at once, the debugger is let go after it). A task waiting
   * for an answer or paused ends too: its outcome is recorded and emitted here.
   */
  stop() {
    if (this.running) {
      this.pauseRequested = false;
      this.abort?.abort();
      return;
    }
    if (!this.waitingForUser && !this.paused) return;
    const step = this.paused ? this.pausedAt : this.step;
    const text = this.waitingForUser ? 'the question was left unanswered' : `stopped while paused at step ${step}`;
    this.waitingForUser = false;
    this.paused = false;
    this.record({ kind: 'outcome', outcome: OUTCOME.STOPPED, text });
    this.emit({ type: 'end', outcome: OUTCOME.STOPPED, step });
  }

  /**
   * Pause: the user takes over the tab. The step in flight stops as with
   * Stop, the debugger is let go, and the run resolves {outcome: 'paused'}.
   * Returns false when nothing runs.
   */
  pause() {
    if (!this.running || this.pauseRequested) return false;
    this.pauseRequested = true;
    this.abort?.abort();
    return true;
  }

  /**
   * Resume after pause(): the next request says the user acted on the page
   * and carries a fresh screenshot of it; the task goes on on its tab.
   */
  async resume(opts = {}) {
    if (!this.paused) throw new Error('the task is not paused');
    this.paused = false;
    const text = userActedNote(this.pausedAt);
    this.history.push({ kind: 'note', text });
    this.record({ kind: 'note', step: this.pausedAt, text, acted: true });
    this.emit({ type: 'resumed', step: this.pausedAt });
    return this.drive({ resume: true, preferTabId: this.lastTabId, ...opts });
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
    this.pauseRequested = false;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    // The previous run's browser.stop() must be done before this run attaches.
    await this.released;
    let result;
    try {
      this.phase = 'attach';
      this.target = await untilAborted(this.browser.start({ ...startOpts, signal }), signal);
      this.lastTabId = this.target?.tabId;
      this.emit({ type: 'attached', target: this.target });
      result = await this.loop(signal);
    } catch (err) {
      if (signal.aborted || err?.code === 'stopped') result = { outcome: this.pauseRequested ? OUTCOME.PAUSED : OUTCOME.STOPPED };
      else result = { outcome: OUTCOME.ERROR, error: String(err?.message || err), ...(typeof err?.code === 'string' ? { code: err.code } : {}) };
    }
    const interruptedIn = this.phase;
    const at = this.step;
    if (result.code === WORKER_STOPPED) this.noteWorkerStopped(result, interruptedIn);
    this.running = false;
    this.phase = '';
    // Shown first, let go of after: a page whose main thread is blocked may hold the debugger's commands.
    this.released = this.browser.stop().catch(() => {});
    if (result.outcome === OUTCOME.PAUSED || result.outcome === OUTCOME.STOPPED) this.noteInterrupted(interruptedIn, result.outcome);
    if (result.outcome === OUTCOME.PAUSED) {
      this.pauseRequested = false;
      this.paused = true;
      this.pausedAt = at;
      this.emit({ type: 'paused', step: at, phase: interruptedIn });
      await this.released;
      return { outcome: OUTCOME.PAUSED, step: at };
    }
    if (result.outcome === OUTCOME.CALL_USER) this.waitingForUser = true;
    // A question keeps the tab it was asked on, so an answer after a reopen continues there.
    const where = result.outcome === OUTCOME.CALL_USER && this.lastTabId !== undefined ? { tabId: this.lastTabId } : {};
    const stepOf = result.outcome === OUTCOME.ERROR && this.step > 0 ? { step: this.step } : {};
    this.record({ kind: 'outcome', outcome: result.outcome, text: result.answer ?? result.question ?? result.error ?? '', ...where, ...stepOf });
    this.emit({ type: 'end', ...result, step: this.step, phase: interruptedIn });
    await this.released;
    return result;
  }

  /**
   * The worker stopped under the task: the error says in words which step
   * and action it cut short, and an action's step gets that as its result.
   */
  noteWorkerStopped(result, phase) {
    const round = this.history.at(-1);
    const acting = phase === 'act' && round?.kind === 'round' && round.step === this.step;
    result.error = interruptedText({ phase, step: this.step, action: acting ? this.lastActionText : undefined });
    if (acting && !round.result) {
      round.result = INTERRUPTED_RESULT;
      this.record({ kind: 'result', step: this.step, text: round.result, error: true, interrupted: 'worker' });
      this.emit({ type: 'result', step: this.step, result: round.result, error: true });
    }
  }

  /**
   * A Stop or Pause that came while an action ran: its step gets a result
   * saying so (the model reads it, never an empty result). A Pause that came
   * before the model answered gives the step back, so the resumed task asks
   * for it again under the same number.
   */
  noteInterrupted(phase, outcome) {
    const how = outcome === OUTCOME.PAUSED ? 'pause' : 'stop';
    const round = this.history.at(-1);
    if (phase === 'act' && round?.kind === 'round' && round.step === this.step && !round.result) {
      round.result = interruptedResult(how);
      this.record({ kind: 'result', step: this.step, text: round.result, error: true, interrupted: how });
    } else if (how === 'pause' && (phase === 'observe' || phase === 'request') && this.step > 0 && round?.step !== this.step) {
      this.step -= 1;
    }
  }

  async loop(signal) {
    const { settings } = this.config;
    for (;;) {
      if (signal.aborted) throw stoppedError();
      if (this.step >= settings.maxSteps) return { outcome: OUTCOME.STEP_LIMIT, error: `stopped after the step limit of ${settings.maxSteps}` };
      this.step++;
      const step = this.step;
      this.phase = 'observe';
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
      // The coordinate sentence and the surfaces (desktop_surface.js) are filled
      // here so any builder (prompt.js, the context manager) only needs date, task and viewport.
      const template = fillTemplate(this.template, { coordinate_rules: coordinateRules(settings.coordinateMode, observation.viewport), surfaces: this.browser.promptLines || '' });
      const ctx = { template, now: this.now(), task: this.task, history: this.history, previousScreenshots, current: observation, warnings, step, maxSteps: settings.maxSteps, coordinateMode: settings.coordinateMode, usage: this.usage.at(-1) || null, signal };
      await this.beforeRequest(ctx);
      if (signal.aborted) throw stoppedError();
      const messages = this.buildMessages(ctx);
      this.lastRequest = messages;
      this.phase = 'request';
      this.emit({ type: 'step', step, phase: 'request', ...(observation.surface ? { surface: observation.surface } : {}) });
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
      this.lastActionText = actionText;
      this.record({ kind: 'analysis', step, text: think });
      // Which surface (tab, desktop) the step saw and acts on, when the browser says.
      const where = observation.surface ? { surface: observation.surface } : {};
      this.record({ kind: 'action', step, text: actionText, usage: this.usage.at(-1) || null, ...where });
      this.emit({ type: 'action', step, think, action, actionText, ...where });
      if (action.name === 'Finished') {
        round.result = 'task finished';
        return { outcome: OUTCOME.FINISHED, answer: action.args.content || '' };
      }
      if (action.name === 'CallUser') {
        round.result = 'waiting for the user';
        return { outcome: OUTCOME.CALL_USER, question: action.args.content };
      }
      this.phase = 'act';
      this.emit({ type: 'step', step, phase: 'act' });
      const res = await untilAborted(this.browser.act(action, { step, signal }), signal);
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
