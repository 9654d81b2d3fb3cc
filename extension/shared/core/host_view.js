// What the extension's pages say about gnosis-host, as a pure function of
// what the worker reports (bridge.hostStatus: the last health reply or the
// transport's error): the chip, one status line, the version with its
// protocol, the MCP servers with their state and stderr, a problem card
// with the fix, the advice for a host that cannot be reached, and whether
// the host's protocol fits this extension's (shared/core/protocol.js). The
// options page's Host section and the setup page render it through one
// component (shared/host_card.js). Texts name this system's reality (paths,
// file names) and never show a raw error code or a backtick: the code goes
// to `code` for the markup's data-code.

import { CODES, TRANSPORT_CODES } from './codes.js';
import { incompatibility, protocolFit } from './protocol.js';

/** The command that adds this extension to the host manifest's allowed origins. */
export function allowCommand(extensionId) {
  return `gnosis-host install --extension-id ${extensionId}`;
}

/** Where gnosis-host writes its log, per chrome.runtime.getPlatformInfo().os. */
export function logPath(os) {
  if (os === 'win') return '%LOCALAPPDATA%\\gnosis\\gnosis-host.log';
  if (os === 'mac') return '~/Library/Caches/gnosis/gnosis-host.log';
  return '~/.cache/gnosis/gnosis-host.log';
}

/** The health error the host gives when its configuration lists no provider. */
const NO_PROVIDER = /^no provider configured\b/;

/** Where the person edits MCP servers (the setup page shows them in their own step, not here). */
const EDIT_SERVERS = 'Edit it on the setup page (MCP server): its program and arguments are there, and it restarts when you save.';

/**
 * @typedef {object} HostView
 * @property {'checking'|'connected'|'degraded'|'down'|'incompatible'} kind
 * @property {string} chip short state for the chip
 * @property {string} chipClass the chip's colour class (connected, degraded, down, or '' for checking)
 * @property {string} line one sentence: the state
 * @property {string} code the transport's or the handshake's code, for data-code ('' when connected)
 * @property {string} said the browser's own words for a transport failure ('' otherwise)
 * @property {boolean} answers the host answered health
 * @property {boolean} connected the host answered and fits: the extension may use it
 * @property {string} version e.g. "0.1.0 · protocol 2"
 * @property {number} capabilities
 * @property {Array<{name: string, prefix: string, state: string, capabilities: number, error?: string, stderr?: string}>} providers
 * @property {{title: string, reason: string, stderr: string, fix: string, command: string, setupLink: boolean, tone: 'error'|'warn'}|null} problem
 * @property {{title: string, message: string, older: 'host'|'extension'|null}|null} update
 * @property {string} advice what to do when the host cannot be reached
 * @property {string} command the terminal command that goes with the advice
 * @property {boolean} install offer to install the host
 * @property {string} startBlocked why the bridge cannot start now ('' when it can)
 */

/**
 * @param {{status?: {state: string}, health?: object|null, error?: {code?: string, message?: string}|null}} r
 *   the worker's bridge.hostStatus answer
 * @param {{extensionId?: string, extensionVersion?: string, os?: string, page?: 'options'|'setup', firefox?: boolean}} [ctx]
 * @returns {HostView}
 */
export function hostView(r, { extensionId = '<extension id>', extensionVersion = '', os = 'linux', page = 'options', firefox = false } = {}) {
  const base = {
    code: '', said: '', answers: false, connected: false, version: '', capabilities: 0, providers: [],
    problem: null, update: null, advice: '', command: '', install: false, startBlocked: '',
  };
  const h = r?.health;
  if (h && h.ok) return answered(h, base, { extensionVersion, page });
  const err = r?.error || (h && !h.ok ? { code: h.code, message: h.message } : null);
  if (!err) {
    return { ...base, kind: 'checking', chip: 'Checking…', chipClass: '', line: 'Checking whether gnosis-host answers…', startBlocked: 'Checking whether the host answers…' };
  }
  return { ...base, ...unreachable(err, { extensionId, os, firefox }), kind: 'down', chipClass: 'down', code: String(err.code || ''),
    said: err.message ? String(err.message) : '', startBlocked: 'Start needs the host, which does not answer (see Host above).' };
}

/**
 * The state a page shows for a provider (health, provider.state, providers.list).
 * The host reports a server it tries again after a failed start or run as
 * `starting`, with that failure as `error`: such a server is shown down, with
 * the failure and its stderr, until a start succeeds, so the page does not
 * turn to "starting" and back at each retry.
 */
export function shownState(p) {
  const state = String(p?.state || 'unknown');
  return state === 'starting' && p.error ? 'down' : state;
}

/** The view of a host that answered health. */
function answered(h, base, { extensionVersion, page }) {
  const fit = protocolFit(h);
  const providers = (h.providers || []).map((p) => ({
    name: String(p.name || '?'), prefix: String(p.prefix || '?'), state: shownState(p),
    capabilities: Number(p.capabilities) || 0,
    ...(p.error ? { error: String(p.error) } : {}), ...(p.stderr ? { stderr: String(p.stderr) } : {}),
  }));
  const view = {
    ...base, answers: true, providers, capabilities: Number(h.capabilities) || 0,
    version: `${h.version || 'unknown version'} · protocol ${fit.host ?? '?'}`,
  };
  if (!fit.fits) {
    const why = incompatibility(h, { extensionVersion });
    return {
      ...view, kind: 'incompatible', chip: 'Update needed', chipClass: 'down', code: TRANSPORT_CODES.HOST_INCOMPATIBLE,
      line: `${why.title}: nothing but a health check is sent to it.`,
      update: { title: why.title, message: why.message, older: fit.older },
      startBlocked: 'Start needs a host this extension can talk to: update first (see Host above).',
    };
  }
  const configError = h.error && !(providers.length === 0 && NO_PROVIDER.test(h.error)) ? String(h.error) : '';
  // The setup page shows the MCP servers in their own step: here only the host itself.
  const down = page === 'setup' ? [] : providers.filter((p) => p.state === 'down');
  const starting = page === 'setup' ? [] : providers.filter((p) => p.state === 'starting');
  let problem = null;
  if (down.length) {
    const p = down[0];
    problem = {
      title: `${p.name} could not start`, reason: p.error || `${p.name} is down.`, stderr: p.stderr || '',
      fix: EDIT_SERVERS, command: 'gnosis-host doctor', setupLink: true, tone: 'error',
    };
  } else if (configError) {
    problem = {
      title: 'The host configuration has a problem', reason: configError, stderr: '',
      fix: 'Fix the configuration file where the message says, then press Check again. In a terminal, gnosis-host doctor checks it.',
      command: 'gnosis-host doctor', setupLink: false, tone: 'error',
    };
  } else if (!providers.length && page !== 'setup') {
    problem = {
      title: 'No MCP server yet', reason: '', stderr: '', fix: 'The host runs, but no MCP server gives it tools yet: add one on the setup page.',
      command: '', setupLink: true, tone: 'warn',
    };
  }
  if (problem) {
    const chip = down.length ? `${down[0].name} down` : providers.length ? 'Degraded' : 'No MCP server';
    return { ...view, kind: 'degraded', chip, chipClass: 'degraded', connected: true, problem, line: `Connected — ${problem.title}` };
  }
  if (page === 'setup') {
    return { ...view, kind: 'connected', chip: 'Connected', chipClass: 'connected', connected: true, line: 'Connected: gnosis-host answers and speaks this extension\'s protocol.' };
  }
  if (starting.length || h.status !== 'ok') {
    const names = starting.map((p) => p.name).join(', ');
    return {
      ...view, kind: 'degraded', chipClass: 'degraded', connected: true,
      chip: starting.length ? `Starting ${names}…` : 'Degraded', line: `Connected — ${starting.length ? `starting ${names}…` : 'degraded'}`,
    };
  }
  return { ...view, kind: 'connected', chip: 'Connected', chipClass: 'connected', connected: true, line: 'Connected — all providers ready' };
}

/** The line and advice for a host the browser could not reach. */
function unreachable(err, { extensionId, os, firefox }) {
  const doctor = 'gnosis-host doctor';
  switch (err.code) {
    case TRANSPORT_CODES.HOST_NOT_FOUND:
      return {
        chip: 'Not found', line: 'The browser finds no gnosis-host to start.', install: true, command: '',
        advice: firefox
          ? `Installed it already? Then its registration or its program is missing, or its manifest does not list this add-on (${extensionId}) in allowed_extensions: installing it again fixes each, and gnosis-host doctor in a terminal says which.`
          : 'Installed it already? Then its registration or its program is missing: install it again, or run gnosis-host doctor in a terminal to see which.',
      };
    case TRANSPORT_CODES.HOST_FORBIDDEN:
    case CODES.FORBIDDEN:
      return {
        chip: 'Not allowed', line: 'gnosis-host does not let this extension in.', command: allowCommand(extensionId),
        advice: `The host's manifest does not list this extension (id ${extensionId}) in allowed_origins. In a terminal, run:`,
      };
    case TRANSPORT_CODES.HOST_EXITED:
      return {
        chip: 'Stopped', line: 'gnosis-host started and stopped at once.', command: doctor,
        advice: `In a terminal, run the command below: it starts the host the way the browser does and says why it stops. The host's log is ${logPath(os)}.`,
      };
    case TRANSPORT_CODES.TIMEOUT:
      return {
        chip: 'Not answering', line: 'gnosis-host did not answer in time.', command: doctor,
        advice: 'It may be busy or stuck. Press Check again; if it stays so, run the command below in a terminal.',
      };
    default:
      return {
        chip: 'Not connected', line: 'The browser could not talk to gnosis-host.', command: doctor,
        advice: 'In a terminal, run the command below: it checks the installation and says what to fix.',
      };
  }
}

/** One MCP server as the pages list it: "munim (computer.*) · ready · 12 tools". */
export function providerLine(p) {
  const tools = p.state === 'ready' ? ` · ${p.capabilities} tool${p.capabilities === 1 ? '' : 's'}` : '';
  return `${p.name} (${p.prefix}.*) · ${p.state}${tools}`;
}
