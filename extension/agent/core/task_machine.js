// Where the current task stands, and what moves it: the task pipeline's
// state machine (task_pipeline.js drives it), as one table (TABLE):
//
//   idle     --submit-->  starting --started--> running --pause--> pausing --paused--> paused
//   starting --notStarted--> back where the submission came from (idle, or waiting for an answer)
//   running, pausing --asked--> waiting --submit (the answer)--> starting
//   running, pausing, paused, waiting --ended--> idle;  paused --resume--> running
//
// Stop in starting lets nothing more start; elsewhere it stops the run,
// whose end comes back as ended. Opened and restored (another conversation:
// nothing runs, or its question waits for an answer) apply in every state.
// A transition may name an effect, which the pipeline carries out: the
// machine only says what. Pure.

/** Where the current task stands. */
export const TASK_STATE = Object.freeze({
  IDLE: 'idle',
  /** Between a submission and its session: permission, compaction. */
  STARTING: 'starting',
  RUNNING: 'running',
  /** Pause pressed, the step in flight stopping. */
  PAUSING: 'pausing',
  PAUSED: 'paused',
  /** The agent asked (CallUser); the next submission answers. */
  WAITING: 'waiting',
});

/** What happens to the task. */
export const TASK_EVENT = Object.freeze({
  /** A task (or the answer to the agent's question) passed validation and starts. */
  SUBMIT: 'submit',
  /** Its session runs. */
  STARTED: 'started',
  /** It did not start: refused, stopped while starting, or a failure. */
  NOT_STARTED: 'notStarted',
  STOP: 'stop',
  PAUSE: 'pause',
  /** The session let the page go after a pause. */
  PAUSED: 'paused',
  RESUME: 'resume',
  /** The run ended with a question for the person. */
  ASKED: 'asked',
  /** The run ended any other way (finished, stopped, an error, the step limit). */
  ENDED: 'ended',
  /** Another conversation is open, with nothing waiting. */
  OPENED: 'opened',
  /** Another conversation is open, its last task waiting for an answer. */
  RESTORED: 'restored',
});

/** What the pipeline does on a transition. */
export const TASK_EFFECT = Object.freeze({
  /** Stop while starting: a compaction in flight ends, nothing more starts. */
  CANCEL_START: 'cancelStart',
  /** The session stops; its end comes back as ENDED (or at once, for a paused or waiting task). */
  STOP_RUN: 'stopRun',
  /** The session stops its step in flight and lets the page go; PAUSED follows. */
  PAUSE_RUN: 'pauseRun',
  /** The session goes on after a pause. */
  RESUME_RUN: 'resumeRun',
});

const S = TASK_STATE;
const E = TASK_EVENT;
const X = TASK_EFFECT;
/** Back to where a submission came from (a refused answer leaves the question waiting). */
const BACK = 'back';

/** state -> event -> [next state, effect?] */
const TABLE = Object.freeze({
  [S.IDLE]: { [E.SUBMIT]: [S.STARTING] },
  [S.STARTING]: { [E.STARTED]: [S.RUNNING], [E.NOT_STARTED]: [BACK], [E.STOP]: [S.STARTING, X.CANCEL_START] },
  [S.RUNNING]: { [E.PAUSE]: [S.PAUSING, X.PAUSE_RUN], [E.STOP]: [S.RUNNING, X.STOP_RUN], [E.ASKED]: [S.WAITING], [E.ENDED]: [S.IDLE] },
  // Stop while pausing: the run stops instead of pausing.
  [S.PAUSING]: { [E.PAUSED]: [S.PAUSED], [E.STOP]: [S.RUNNING, X.STOP_RUN], [E.ASKED]: [S.WAITING], [E.ENDED]: [S.IDLE] },
  [S.PAUSED]: { [E.RESUME]: [S.RUNNING, X.RESUME_RUN], [E.STOP]: [S.PAUSED, X.STOP_RUN], [E.ENDED]: [S.IDLE] },
  [S.WAITING]: { [E.SUBMIT]: [S.STARTING], [E.STOP]: [S.WAITING, X.STOP_RUN], [E.ENDED]: [S.IDLE] },
});

/** Events that apply in every state. */
const ANYWHERE = Object.freeze({ [E.OPENED]: [S.IDLE], [E.RESTORED]: [S.WAITING] });

/** The machine before anything happened. */
export const INITIAL = Object.freeze({ state: S.IDLE, from: S.IDLE });

/**
 * The transition of machine m on event, or null when the event does not
 * apply in its state (nothing changes, nothing is done).
 * @param {{state:string, from:string}} m from: where a starting task came from
 * @param {string} event one of TASK_EVENT
 * @returns {{state:string, from:string, effect?:string} | null}
 */
export function transition(m, event) {
  const row = TABLE[m.state]?.[event] || ANYWHERE[event];
  if (!row) return null;
  const [to, effect] = row;
  const state = to === BACK ? m.from : to;
  const from = event === E.SUBMIT ? m.state : m.from;
  return effect ? { state, from, effect } : { state, from };
}

/** True while a task starts, runs or is paused: the conversation may not change. */
export function isBusy(state) {
  return state === S.STARTING || state === S.RUNNING || state === S.PAUSING || state === S.PAUSED;
}
