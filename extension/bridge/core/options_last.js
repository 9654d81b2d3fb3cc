// The words of the options page's "Last" line: what the worker last reported
// for a site (armed, stopped, a call run, a reply not run and why, a result
// delivered (with its images, or saying which are missing), a failure, a call interrupted, an approval or progress), and
// whether that report is an error the page also shows in its error line. A
// capability's name is kept apart from the words around it ({name}) so the
// page can show it with visible boundaries (a tool name may hold spaces); an
// error code reads as words. Pure: no DOM, no chrome.* calls; tested with
// node --test.
import { progressText } from '../../shared/core/ui.js';
import { CODES } from '../../shared/core/codes.js';

/** What a call's error code means, in words. */
const CODE_WORDS = {
  [CODES.FORBIDDEN]: 'not allowed for this site, or you said no',
  [CODES.INVALID_ARGUMENTS]: 'its arguments do not fit the tool',
  [CODES.INVALID_REQUEST]: 'not a valid request',
  [CODES.CAPABILITY_NOT_FOUND]: 'no tool has that name',
  [CODES.PROVIDER_NOT_FOUND]: 'no server has that prefix',
  [CODES.PROVIDER_UNAVAILABLE]: 'its server is not running',
  [CODES.EXECUTION_ERROR]: 'the tool failed',
  [CODES.TIMEOUT]: 'timed out',
  [CODES.CANCELLED]: 'cancelled',
  [CODES.MESSAGE_TOO_LARGE]: 'too large',
  [CODES.OVERLOADED]: 'the host is busy',
  [CODES.NOT_CONFIGURED]: 'not set up in the host',
  [CODES.TOO_COSTLY]: 'too costly to check against the tool\'s schema',
};

/** A call's outcome in words: "ok", or what its error code means. */
export function outcomeWords(ok, code) {
  if (ok) return 'ok';
  return CODE_WORDS[code] || (code ? 'failed' : 'failed, for no reason given');
}

/**
 * What happened, without the time, as parts: strings, and {name} for a
 * capability's name.
 * @param {{kind: string, capability?: string, ok?: boolean, code?: string, stage?: string, error?: string, attached?: number, missing?: string}} last
 *   attached: images attached with a delivered result; missing: which were not, and why
 * @returns {Array<string|{name: string}>}
 */
export function lastEventParts(last) {
  const name = { name: String(last.capability ?? '') };
  switch (last.kind) {
    case 'armed': return ['armed'];
    case 'stopped': return [last.error ? `stopped — ${last.error}` : 'stopped'];
    case 'executed': return [last.ok ? 'ran ' : 'called ', name, `: ${outcomeWords(last.ok, last.code)}`];
    case 'skipped': return ['did not run ', name, `: ${last.reason}`];
    case 'delivered': {
      const n = last.attached || 0;
      if (last.missing) return [`result delivered (${last.stage}), but ${last.missing}`];
      return [`result delivered (${last.stage})${n ? ` with ${n} image${n === 1 ? '' : 's'} attached` : ''}`];
    }
    case 'failed': return [last.stage === 'preset' ? last.error : last.stage === 'interrupted' ? `interrupted: ${last.error}` : `failed at ${last.stage}: ${last.error}`];
    case 'approval': return ['waiting for your approval: ', name];
    case 'progress': {
      // progressText writes "running <name> — …": the name goes where the mark is.
      const [before, after] = progressText('\u0000', last).split('\u0000');
      return [before, name, after].filter((p) => p !== '');
    }
    default: return [String(last.kind)];
  }
}

/** What happened, in words, without the time (names as they are). */
export function lastEventWhat(last) {
  return lastEventParts(last).map((p) => (typeof p === 'string' ? p : p.name)).join('');
}

/** A failure, or a stop with a reason: the page shows it as an error too. */
export function lastEventIsError(last) {
  return last.kind === 'failed' || (last.kind === 'stopped' && !!last.error) || (last.kind === 'delivered' && !!last.missing);
}
