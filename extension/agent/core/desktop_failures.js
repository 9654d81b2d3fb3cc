// What a desktop call that did not run says, to the person and to the model:
// a refusal (the agent's grants, the person's answer in the approval window)
// in the words of the place that changes it, and a server that failed named
// by its name with what the host says of it. A server's stderr is quoted
// only where a line reads as an error: a server killed from outside wrote
// nothing about it, and its start-up banner ("Computer Use MCP server
// running on stdio") is not its last words. Pure.

import { CODES } from '../../shared/core/codes.js';

/** A line that says what failed, in the words of common runtimes and tools (as the host's own pick, runtime/mcpprovider/headline.go). */
const TELLING = /^(?:(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b|(?:error|fatal|panic|failed|cannot|can't|could not|unable to)\b)|Cannot find module|command not found|No such file or directory|Permission denied|not found/i;

/**
 * The lines of a server's stderr that read as an error, the last three,
 * each once, joined with " | "; '' when none does.
 */
export function tellingLines(stderr) {
  const lines = String(stderr || '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && TELLING.test(l));
  return [...new Set(lines)].slice(-3).join(' | ').slice(0, 400);
}

/** A host message without a "; stderr: …" quote that does not read as an error (the host quotes the last line when none does). */
export function withoutQuietStderr(message) {
  const text = String(message || '');
  const at = text.indexOf('; stderr: ');
  if (at < 0 || TELLING.test(text.slice(at + 10).trim())) return text;
  return text.slice(0, at);
}

/**
 * Why the host refused one of the agent's desktop calls (a FORBIDDEN reply),
 * by its details.reason: not granted, declined in the approval window, or
 * not answered there in time.
 */
export function refusalText(capability, reply) {
  switch (reply?.details?.reason) {
    case 'denied': return `the person declined ${capability} in the approval window`;
    case 'timeout': return `nobody answered the approval window for ${capability} in time`;
    default: return `the agent may not use ${capability}: allow it in Settings → Desktop`;
  }
}

/** The result of a refused desktop action, as the model reads it in its next step (and the panel shows it). */
export function refusedResult(capability, reply) {
  return `refused: ${refusalText(capability, reply)}. Nothing was done on the desktop. Go on in the browser tab (SwitchSurface(surface='tab')) or finish.`;
}

/** True for a reply that says the server went away (killed, crashed, restarting): the call may be tried again once it is back. */
export function serverGone(reply) {
  return reply?.code === CODES.PROVIDER_UNAVAILABLE;
}

/**
 * What a failed desktop call says: which server (its name and prefix, from
 * the host's health), what the host said, and the server's own words on
 * stderr when they read as an error.
 * @param {{capability:string, reply:{code:string, message:string, details?:object},
 *   provider?:{name?:string, prefix?:string, stderr?:string}|null, retried?:'failed'|'not-back'}} o
 *   retried: the call was tried again after the host restarted the server and failed
 *   ('failed'), or the server did not come back in time ('not-back')
 */
export function serverFailureText({ capability, reply, provider = null, retried }) {
  const prefix = capability.split('.')[0];
  const who = provider?.name && provider.name !== prefix ? `"${provider.name}" (${prefix}.*)` : `"${prefix}"`;
  const said = tellingLines(provider?.stderr ?? reply?.details?.stderr);
  const again = retried === 'failed' ? ', and again after the host restarted it' : retried === 'not-back' ? ', and the host did not start it again in time' : '';
  return `the desktop server ${who} failed on ${capability}${again}: ${reply.code}: ${withoutQuietStderr(reply.message)}${said ? `. Its last words on stderr: ${said}` : ''}. Check it on the setup page, then run the task again.`;
}
