// The words of the options page's "Last" line: what the worker last reported
// for a site (armed, stopped, a call run, a reply not run and why, a result
// delivered, a failure, a call interrupted, an approval or progress), and
// whether that report is an error the page also shows in its error line. Pure: no DOM, no chrome.* calls; tested with
// node --test.
import { progressText } from '../../shared/core/ui.js';

/**
 * What happened, in words, without the time.
 * @param {{kind: string, capability?: string, ok?: boolean, code?: string, stage?: string, error?: string}} last
 */
export function lastEventWhat(last) {
  return {
    armed: 'armed',
    stopped: last.error ? `stopped — ${last.error}` : 'stopped',
    executed: `ran ${last.capability}: ${last.ok ? 'ok' : last.code}`,
    skipped: `did not run ${last.capability}: ${last.reason}`,
    delivered: `result delivered (${last.stage})`,
    failed: last.stage === 'preset' ? last.error : last.stage === 'interrupted' ? `interrupted: ${last.error}` : `failed at ${last.stage}: ${last.error}`,
    approval: `waiting for your approval: ${last.capability}`,
    progress: progressText(last.capability, last),
  }[last.kind] || last.kind;
}

/** A failure, or a stop with a reason: the page shows it as an error too. */
export function lastEventIsError(last) {
  return last.kind === 'failed' || (last.kind === 'stopped' && !!last.error);
}
