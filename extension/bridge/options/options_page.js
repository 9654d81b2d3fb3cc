// What every part of the chat bridge's options page shares: the state of the
// site being edited, and the small helpers for the page's DOM, its error line
// and messages to the worker (bridge/worker/bridge_worker.js), which keeps everything
// persistent. $, send, setIfChanged and setText are shared/page.js's, the same for every extension page.
import { $, send, setIfChanged, setText } from '../../shared/page.js';

export { $, send, setIfChanged, setText };

export const state = {
  origin: null, // the origin being edited
  tab: null, // an open tab of that origin, if any
  granted: false, // optional host permission for origin
  armed: false,
  starting: false, // Start is arming the site: its tabs are not watched until the worker answers
  grants: null, // {origin, capabilities, choices, configured} once the host answered
  preset: '', // the id of the preset the settings came from
  autoSendChosen: false, // the person ticked or unticked Auto-send (else it follows the send button)
};

/** The page's own events: 'grants' when the table's choices or tools change. */
export const changes = new EventTarget();

/** Shows or hides el (a write only when that changes it: the page refreshes every second). */
export function show(el, visible) {
  setIfChanged(el, 'hidden', !visible);
}

/** Shows text in the form's error line; empty text hides it. */
export function setError(text) {
  $('form-error').textContent = text || '';
  show($('form-error'), !!text);
}
