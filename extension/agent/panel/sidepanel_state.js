// What the Side Panel's modules share while the panel is open: the settings
// in force, the conversation store and bar, the current task's session and
// meter, a compaction in flight, and the ordered queue of conversation
// writes. One object, so every module reads the same current values.

import { DEFAULTS } from '../core/config_validation.js';

export const panel = {
  sessionId: crypto.randomUUID(),
  settings: { ...DEFAULTS, apiKey: '' },
  template: '', // the system prompt (prompts/venus_system.txt)
  windowId: undefined,
  store: null, // the conversation store (core/conversation_store.js)
  bar: null, // the conversation bar (conversation_view.js)
  images: null, // the reference images picked for the next task (reference_images.js)
  session: null, // the AgentSession of the current task
  meter: null, // the current task's step and token meter
  compacting: null, // AbortController of a compaction request in flight
};

let writes = Promise.resolve(); // record appends, in order
let pendingWrites = 0;

/**
 * Queues a conversation write after the earlier ones. While any is pending
 * the body says data-saving="true", so a test (or a person) can tell the
 * panel is safe to close.
 */
export function queueWrite(write, onError = () => {}) {
  pendingWrites += 1;
  document.body.dataset.saving = 'true';
  writes = writes.then(write).catch(onError).finally(() => {
    pendingWrites -= 1;
    if (pendingWrites === 0) document.body.dataset.saving = 'false';
  });
  return writes;
}

/** Settles once every write queued so far has. */
export function writesSettled() {
  return writes;
}
