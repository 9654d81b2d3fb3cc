// The host card's state (shared/host_card.js is its view): what it knows of
// this system and the release location, the host's last view, an install
// or update download under way, and when the live poll asks the host again;
// and the words of its notes. Each change is a function from the state to
// the next one (with what the view shows for it), so the card's behaviour
// is tested with node --test. Pure.

/** What the browser's download errors mean, in words (chrome.downloads.InterruptReason). */
const DOWNLOAD_FAILURES = [
  [/^SERVER_BAD_CONTENT$/, 'the server has no such file'],
  [/^SERVER_(FORBIDDEN|UNAUTHORIZED|CERT_PROBLEM)$/, 'the server refused it'],
  [/^SERVER_/, 'the server failed'],
  [/^NETWORK_/, 'the network failed'],
  [/^FILE_/, 'the file could not be saved'],
  [/^USER_/, 'it was cancelled'],
];

/**
 * The card before it has asked anything.
 * @param {{page:'options'|'setup', extensionId:string, extensionVersion:string, firefox:boolean}} o
 */
export function initialCard(o) {
  return Object.freeze({
    ...o, info: null, installType: '', location: '', isDefault: true,
    /** The host's last view (host_view.js). */
    view: null,
    /** The download being installed, until the host answers: {id, pkg}. */
    installing: null,
    /** An update was downloaded: a host that does not fit is asked again now and then. */
    awaitingUpdate: false,
    /** The tone of the install note shown ('info', 'ok', 'error'), or '' for none. */
    noteTone: '',
    tick: 0,
  });
}

/** The state with this system's facts and the release location read. */
export function withContext(st, { info, installType, location, isDefault }) {
  return { ...st, info, installType: installType || '', location, isDefault };
}

/** The state with the release location the person saved. */
export function withLocation(st, { location, isDefault }) {
  return { ...st, location, isDefault };
}

/**
 * The host's new view: an install under way is over once the host answers
 * ('installed' note); a failed download's note is no news once the host
 * answers some other way ('clear'); an awaited update stops being awaited
 * when the host is gone.
 * @returns {{state: object, note: 'installed'|'clear'|null}}
 */
export function viewSeen(st, v) {
  let note = null;
  let next = { ...st, view: v };
  if (v.connected && st.installing) {
    next = { ...next, installing: null, noteTone: 'ok' };
    note = 'installed';
  } else if (v.connected && st.noteTone === 'error') {
    next = { ...next, noteTone: '' };
    note = 'clear';
  }
  if (!v.connected && v.kind !== 'incompatible' && st.awaitingUpdate) next = { ...next, awaitingUpdate: false };
  return { state: next, note };
}

/**
 * One tick of the live poll (every second): the worker's copy follows the
 * host's events; a host that does not answer is asked again every two
 * seconds (the wait after an install), one that does not fit every five
 * once its update was fetched.
 * @returns {{state: object, force: boolean}}
 */
export function pollTick(st) {
  const tick = st.tick + 1;
  const v = st.view;
  let force = false;
  if (v && !v.answers) force = tick % 2 === 0;
  else if (v?.kind === 'incompatible') force = st.awaitingUpdate && tick % 5 === 0;
  return { state: { ...st, tick }, force };
}

/** A download of pkg started (download id); an update's is awaited until the host fits. */
export function downloadStarted(st, { id, pkg, isUpdate }) {
  return { ...st, installing: { id, pkg }, awaitingUpdate: isUpdate, noteTone: 'info' };
}

/** Why a download did not finish, in words. */
export function downloadFailure(error) {
  return DOWNLOAD_FAILURES.find(([re]) => re.test(error || ''))?.[1] || 'it did not finish';
}

/** A download that failed: nothing is being installed. */
export function downloadFailed(st) {
  return { ...st, installing: null, noteTone: 'error' };
}

/** What the report button says once the report is built: copied, or why not, and whether the host's part is in it. */
export function reportSaid({ hostIncluded, copyError }) {
  const without = hostIncluded ? '' : ' The host did not answer, so only the extension’s part is in it.';
  if (copyError) return `Could not copy it (${copyError}): select the text below and copy it.${without}`;
  return `Copied. Paste it into your bug report; secrets and argument values in it read [redacted].${without}`;
}
