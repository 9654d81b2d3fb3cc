// A conversation whose latest task never got an outcome (its panel closed
// while it ran, or while it was paused): which step it was cut at, in the
// words the panel records for it. Pure.

/**
 * Of a conversation's records, the latest task when it never got an outcome
 * (its panel closed while it ran, or while it was paused): {task, step,
 * paused, text}; null when the latest task ended. step is the step it was
 * in: the last one recorded when its action never reported back (or the
 * user had paused it), the next one when the last one was complete.
 */
export function interruptedTask(records) {
  const last = records.findLast((r) => r.kind === 'outcome' || r.kind === 'task' || r.kind === 'user');
  if (!last || last.kind === 'outcome') return null;
  const task = records.findLast((r) => r.kind === 'task');
  if (!task) return null;
  const steps = records.filter((r) => r.seq > task.seq && ['analysis', 'action', 'result'].includes(r.kind));
  const lastStep = steps.at(-1)?.step;
  if (lastStep === undefined) return { task: task.text, step: 1, paused: false, text: 'the side panel was closed during step 1' };
  const result = steps.find((r) => r.kind === 'result' && r.step === lastStep);
  const action = steps.find((r) => r.kind === 'action' && r.step === lastStep);
  const paused = result?.interrupted === 'pause';
  // A step is over when its result came back, or when it asked the user (the answer came after it).
  const over = (result && !paused) || /^CallUser\(/.test(action?.text || '');
  const step = over ? lastStep + 1 : lastStep;
  const text = paused ? `the side panel was closed while the task was paused at step ${step}` : `the side panel was closed during step ${step}`;
  return { task: task.text, step, paused, text };
}
