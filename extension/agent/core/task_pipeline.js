// A task's one way in. Whatever starts it (the Side Panel's Run, a page's
// Page Assistant, the answer to the agent's question), a task goes down one
// pipeline:
//
//   validate (config_validation.js) → host permission → compact if needed
//   (task_compaction.js) → start the session (agent_session.js), its records
//   mirrored in the context builder and written, in order, to the conversation
//
// and everything that happens comes back up as events the view renders:
//
//   {type:'begin', tabId, replying}        a submission arrived (before validation)
//   {type:'blocked', v}                    validation refused it (v: validateTask's answer)
//   {type:'resolved'}                      it passed: earlier blocked cards are out of date
//   {type:'submitted', text, images, replying, acted}
//   {type:'compaction', where, phase, …}   see task_compaction.js
//   {type:'meter', meter}                  the task's steps and tokens so far (task_meter.js snapshot)
//   {type:'state', state, step}            see TASK_STATE
//   {type:'restored', question}            an opened conversation still waits for an answer
//   the session's events (attached, step, delta, retry, parse_error,
//   step_failed, usage, action, result, paused, resumed) and
//   {type:'end', outcome, …, meter}        every end, including Stop while asking or paused,
//                                          a stopped compaction and a task whose panel closed
//   {type:'saving', saving}                conversation writes pending or not
//   {type:'write_error', what, error}      a write failed ('record' or 'screenshot')
//   {type:'conversation_changed'}          the conversation's title or time changed
//   {type:'failure', error}                something unexpected broke the start
//
// The view calls open(), start(), stop(), pause() and resume() and only
// listens. Where the task stands is task_machine.js's: each call and each end
// of a run is an event of that machine, and what a transition names is done
// here. Pure: the store, settings, permission, model and browser are
// injected, so the pipeline is tested with node --test.

import { AgentSession, OUTCOME } from './agent_session.js';
import { validateTask } from './config_validation.js';
import { createContextBuilder } from './context_builder.js';
import { createMeter, meterFromRecords } from './task_meter.js';
import { compactBeforeTask, createWithinTaskCompaction } from './task_compaction.js';
import { pendingQuestion } from './outcome_text.js';
import { INITIAL, isBusy, TASK_EFFECT, TASK_EVENT, TASK_STATE, transition } from './task_machine.js';
import { interruptedTask } from './interrupted_task.js';
import { createWriteQueue } from './write_queue.js';

export { TASK_STATE, interruptedTask };

/** What dispatch returns for an event that does not apply now. */
const IGNORED = Symbol('ignored');

/**
 * @param {object} deps
 * @param {object} deps.store the conversation store (conversation_store.js)
 * @param {() => object} deps.settings the settings in force
 * @param {() => string} deps.template the system prompt
 * @param {(originPattern: string) => Promise<boolean>} deps.grant the host permission for the endpoint;
 *   called at once from start(), inside the user's gesture
 * @param {(settings: object) => object} deps.modelFor the model client for these settings
 * @param {(o: {coordinateMode: string, surface?: string}) => object} deps.browserFor the browser for a run
 *   (the tab and desktop surfaces of desktop_surface.js over the panel's link); surface: where the
 *   person chose to start ('tab' or 'desktop')
 * @param {string} deps.origin the page's origin (the model client's advice on a local 403)
 * @param {() => Promise<boolean>} [deps.liveElsewhere] true when another panel may be running this
 *   conversation's task, so an unfinished task is not taken for interrupted
 * @param {(task: {conversation: string, seq: number, task: string, steps: number, outcome: string,
 *   text?: string, url?: string}) => void} [deps.onOutcome] told of each outcome a task's session records
 *   (the activity log)
 * @param {() => Date} [deps.now]
 */
export function createTaskPipeline(deps) {
  const { store } = deps;
  const listeners = new Set();
  let conversationId = null;
  let session = null;
  let builder = null;
  let meter = null;
  let taskSeq = 0;
  let machine = INITIAL; // task_machine.js: where the task stands
  let cancelled = false; // Stop pressed while the task was starting
  let compacting = null; // AbortController of a compaction before a task
  let lastState = null;

  function emit(e) {
    for (const fn of listeners) {
      try { fn(e); } catch { /* a view must not break the pipeline */ }
    }
  }

  const state = () => machine.state;

  /** Tells the view the state, when it changed. */
  function changed() {
    const s = state();
    if (s === lastState) return;
    lastState = s;
    emit({ type: 'state', state: s, step: (session?.paused ? session.pausedAt : session?.step) || 0 });
  }

  /** What a transition names (TASK_EFFECT), done here. */
  const effects = {
    [TASK_EFFECT.CANCEL_START]: () => {
      if (compacting) compacting.abort();
      else cancelled = true;
    },
    [TASK_EFFECT.STOP_RUN]: () => session?.stop(),
    [TASK_EFFECT.PAUSE_RUN]: () => session?.pause(),
    [TASK_EFFECT.RESUME_RUN]: () => session.resume(),
  };

  /**
   * Moves the machine on event and does what the transition names; the view
   * hears the new state. Returns the effect's value, or IGNORED when the
   * event does not apply now.
   */
  function dispatch(event) {
    const t = transition(machine, event);
    if (!t) return IGNORED;
    machine = t;
    const value = t.effect ? effects[t.effect]() : undefined;
    changed();
    return value;
  }

  const { write, settled } = createWriteQueue(emit);

  function showMeter() {
    emit({ type: 'meter', meter: meter ? meter.snapshot() : null });
  }

  /** A session's event for the view; the current session's end or pause moves the machine. */
  function onSessionEvent(from, e) {
    if (e.type === 'usage') meter?.usage(e.usage);
    if (e.type === 'action') meter?.step();
    if (e.type === 'end') {
      emit({ ...e, meter: meter?.snapshot() || null });
      settled().then(() => emit({ type: 'conversation_changed' }));
    } else {
      emit(e);
    }
    if (e.type === 'usage' || e.type === 'action') showMeter();
    if (from !== session) return;
    if (e.type === 'end') dispatch(e.outcome === OUTCOME.CALL_USER ? TASK_EVENT.ASKED : TASK_EVENT.ENDED);
    else if (e.type === 'paused') dispatch(TASK_EVENT.PAUSED);
  }

  /** The AgentSession of a task in conversation id, its records mirrored by b and written in order. */
  function newSession(id, b, config, { browser = null, refs = [] } = {}) {
    let images = refs;
    const s = new AgentSession({
      browser, model: config ? deps.modelFor(config.settings) : null, template: deps.template(), config,
      now: deps.now, onEvent: (e) => onSessionEvent(s, e),
      buildMessages: (ctx) => b.buildMessages(ctx),
      onRecord: (r) => {
        const rec = images.length && (r.kind === 'task' || r.kind === 'user') ? { ...r, images: images.map(({ name, mime, size }) => ({ name, mime, size })) } : r;
        const mirrored = b.onRecord(rec);
        const saved = write(() => store.append(id, rec), 'record');
        if (r.kind === 'task') {
          taskSeq = mirrored.seq;
          saved.then(() => emit({ type: 'conversation_changed' }));
        }
        if (r.kind === 'outcome') {
          deps.onOutcome?.({ conversation: id, seq: taskSeq, task: s.task, steps: s.step, outcome: r.outcome, text: r.text, url: s.target?.url });
        }
        if (rec.images) {
          const seq = taskSeq;
          const kept = images;
          write(() => store.putReferenceImages(id, seq, kept), 'record');
          images = [];
        }
      },
      beforeRequest: async (ctx) => {
        const seq = taskSeq;
        const shot = { mime: ctx.current.mime, image: ctx.current.image };
        const keep = s.config?.settings.keepScreenshots ?? deps.settings().keepScreenshots;
        write(() => store.putScreenshot(id, seq, ctx.step, shot, { keep }), 'screenshot');
        await within(ctx);
      },
    });
    const within = createWithinTaskCompaction({
      builder: b,
      connection: () => ({ config: s.config, model: s.model }),
      persist: (r) => write(() => store.append(id, r), 'record'),
      emit,
    });
    return s;
  }

  /**
   * Reopens a task that stopped to ask the user: the question stays pending,
   * and the answer continues the same task (its records, step count,
   * reference images and tab).
   */
  async function restoreQuestion(id, records, question) {
    const taskRec = records.findLast((r) => r.kind === 'task' && r.seq < question.seq);
    if (!taskRec) return;
    const steps = records.filter((r) => r.seq > taskRec.seq && r.kind === 'action').map((r) => r.step);
    const refs = await store.referenceImages(id, taskRec.seq).catch(() => []);
    builder = createContextBuilder({ records, referenceImages: refs });
    taskSeq = taskRec.seq;
    session = newSession(id, builder, null);
    session.restoreWaiting({ task: taskRec.text, step: steps.length ? Math.max(...steps) : 0, tabId: question.tabId });
    emit({ type: 'restored', question });
  }

  /** A task whose panel closed while it ran gets its outcome: interrupted, at which step. */
  async function closeInterrupted(id, records) {
    const cut = interruptedTask(records);
    if (!cut || (await deps.liveElsewhere?.().catch(() => false))) return;
    const record = { kind: 'outcome', outcome: OUTCOME.INTERRUPTED, text: cut.text, step: cut.step, at: (deps.now?.() || new Date()).toISOString() };
    write(() => store.append(id, record), 'record');
    emit({ type: 'end', outcome: OUTCOME.INTERRUPTED, error: cut.text, step: cut.step, paused: cut.paused, meter: meter?.snapshot() || null, restored: true });
    settled().then(() => emit({ type: 'conversation_changed' }));
  }

  const busy = () => isBusy(state());

  /** Stop while starting: nothing more starts, and the view hears that it stopped. */
  function stoppedWhileStarting() {
    emit({ type: 'end', outcome: OUTCOME.STOPPED, meter: null });
    return { outcome: OUTCOME.STOPPED };
  }

  async function run(task, o, v, granted) {
    const ok = await granted;
    if (cancelled) return stoppedWhileStarting();
    if (!ok) {
      emit({ type: 'blocked', v: validateTask({ task, settings: deps.settings(), granted: false }) });
      return { blocked: true };
    }
    emit({ type: 'resolved' });
    const refs = o.images?.() || [];
    const replying = o.replying;
    emit({ type: 'submitted', text: task, images: refs, replying, acted: Boolean(o.acted), tabId: o.tabId });
    // Via the host no Origin header reaches the server, so a 403 is not the origin setting (loopback: false).
    const config = { settings: v.settings, endpoint: v.endpoint, loopback: v.loopback && v.settings.connection !== 'host', apiKey: deps.settings().apiKey, origin: deps.origin };
    // An answer continues on the surface the question was asked on.
    const browser = deps.browserFor({ coordinateMode: v.settings.coordinateMode, surface: (replying ? session?.browser?.surface : undefined) ?? o.surface });
    if (replying) {
      Object.assign(session, { config, browser, model: deps.modelFor(v.settings) });
      if (refs.length) {
        builder?.setReferenceImages(refs);
        const seq = taskSeq;
        const id = conversationId;
        write(() => store.putReferenceImages(id, seq, refs), 'record');
      }
      const extra = { ...(refs.length ? { images: refs.map(({ name, mime, size }) => ({ name, mime, size })) } : {}), ...(o.acted ? { acted: true } : {}) };
      const done = session.reply(task, { extra, preferTabId: session.lastTabId });
      dispatch(TASK_EVENT.STARTED);
      return done;
    }
    const id = conversationId;
    await settled();
    let records = await store.records(id);
    if (cancelled) return stoppedWhileStarting();
    compacting = new AbortController();
    const goOn = await compactBeforeTask({
      records, config, model: deps.modelFor(v.settings), signal: compacting.signal, emit,
      append: (r) => store.append(id, r),
    });
    compacting = null;
    if (!goOn) {
      emit({ type: 'end', outcome: OUTCOME.STOPPED, compaction: true, meter: null });
      return { outcome: OUTCOME.STOPPED };
    }
    records = await store.records(id);
    if (cancelled) return stoppedWhileStarting();
    builder = createContextBuilder({ records, referenceImages: refs });
    meter = createMeter({ maxSteps: v.settings.maxSteps });
    showMeter();
    session = newSession(id, builder, config, { browser, refs });
    const done = session.run(task, o.tabId !== undefined ? { tabId: o.tabId } : {});
    dispatch(TASK_EVENT.STARTED);
    return done;
  }

  return {
    /** Adds a listener of every event; returns the function that removes it. */
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    get state() { return state(); },
    /** True while a task starts, runs or is paused (the conversation may not change). */
    busy,
    /** The current task's session (read only; tests and the Page Assistant's relay look at it). */
    get session() { return session; },
    /** Settles once every conversation write queued so far has. */
    settled,
    /** The current task's key in the activity log (conversation:seq), so its host calls are logged under it. */
    get taskKey() { return `${conversationId}:${taskSeq}`; },

    /**
     * The active conversation changed (panel opened, selector, New, Delete):
     * a pending question is restored, a task whose panel closed while it ran
     * is closed as interrupted.
     */
    async open(id, records) {
      if (session?.running) session.stop();
      session = null;
      builder = null;
      conversationId = id;
      // Whatever ran stops counting; the view hears the new conversation's state once it is read.
      machine = transition(machine, TASK_EVENT.OPENED);
      meter = records.some((r) => r.kind === 'task') ? meterFromRecords(records, { maxSteps: deps.settings().maxSteps }) : null;
      emit({ type: 'opened', id });
      showMeter();
      const question = pendingQuestion(records);
      if (question) await restoreQuestion(id, records, question);
      else await closeInterrupted(id, records);
      if (session?.waitingForUser) machine = transition(machine, TASK_EVENT.RESTORED);
      lastState = null;
      changed();
    },

    /**
     * A task, or the answer to the agent's question. o: {tabId (the page that
     * sent it), reply (a page's submission answers the question), images ()
     * → the reference images to send, acted (the answer "I did it on the page"),
     * surface (where the task starts: 'tab' or 'desktop')}.
     * Validation and the permission request run before anything is awaited
     * (the request needs the user's gesture). Never rejects: a failure is an event.
     */
    start(text, o = {}) {
      if (busy()) return Promise.resolve({ ignored: true });
      const task = String(text ?? '').trim();
      const replying = Boolean(session?.waitingForUser) && (o.tabId === undefined || o.tabId === null || o.reply === true);
      // "I did it on the page" answers a question; with none pending it starts nothing.
      if (o.acted && !replying) return Promise.resolve({ ignored: true });
      emit({ type: 'begin', tabId: o.tabId, replying });
      const v = validateTask({ task, settings: deps.settings() });
      if (!v.ok) {
        emit({ type: 'blocked', v });
        return Promise.resolve({ blocked: true });
      }
      // Via the host the extension never fetches the endpoint itself: no permission needed.
      const granted = v.settings.connection === 'host' || deps.grant(v.originPattern);
      cancelled = false;
      dispatch(TASK_EVENT.SUBMIT);
      return run(task, { ...o, replying }, v, granted).catch((err) => {
        emit({ type: 'failure', error: String(err?.message || err) });
        return { failure: true };
      }).finally(() => {
        compacting = null;
        dispatch(TASK_EVENT.NOT_STARTED);
      });
    },

    /** Stop: ends a compaction, a running or paused task, or a question left unanswered. */
    stop() {
      dispatch(TASK_EVENT.STOP);
    },

    /** Pause: the user takes over the tab; the step in flight stops and the debugger lets go. */
    pause() {
      dispatch(TASK_EVENT.PAUSE);
    },

    /** Resume after Pause: the next request says the user acted and carries a fresh screenshot. */
    resume() {
      const done = dispatch(TASK_EVENT.RESUME);
      if (done === IGNORED) return Promise.resolve({ ignored: true });
      return done.catch((err) => {
        emit({ type: 'failure', error: String(err?.message || err) });
        return { failure: true };
      });
    },
  };
}
