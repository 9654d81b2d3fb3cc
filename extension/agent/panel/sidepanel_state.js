// What the Side Panel's modules share while the panel is open: the settings
// in force, the system prompt, the window, the conversation store and bar,
// the reference images picked for the next task, and the task pipeline
// (core/task_pipeline.js), which holds the current task. One object, so every
// module reads the same current values.

import { DEFAULTS } from '../core/config_validation.js';

export const panel = {
  sessionId: crypto.randomUUID(),
  settings: { ...DEFAULTS, apiKey: '' },
  template: '', // the system prompt (prompts/venus_system.txt)
  windowId: undefined,
  store: null, // the conversation store (core/conversation_store.js)
  bar: null, // the conversation bar (conversation_view.js)
  images: null, // the reference images picked for the next task (reference_images.js)
  pipeline: null, // the task pipeline (core/task_pipeline.js)
};
