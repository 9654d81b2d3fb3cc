// What the extension's pages say about the host and about work in progress,
// as pure functions of what the host and the worker report: the host status
// (chip, line, problem card with the server's own words and the fix), a
// call's progress, and a retry's countdown. The options page, the toolbar
// badge and the side panel all use these, so the same state reads the same
// everywhere. No chrome.* calls; tested with node --test.

import { CODES, TRANSPORT_CODES } from './codes.js';

/** The command that adds this extension to the host manifest's allowed origins. */
export function allowCommand(extensionId) {
  return `gnosis-host install --extension-id ${extensionId}`;
}

/**
 * The options page's view of the host.
 * @param {{status?: {state: string}, health?: object|null, error?: {code?: string, message?: string, advice?: string}|null}} r
 *   the worker's bridge.hostStatus answer
 * @param {{extensionId?: string}} [ctx]
 * @returns {{kind: 'checking'|'connected'|'degraded'|'down', chip: string, line: string, connected: boolean,
 *   providers: Array<{name: string, prefix: string, state: string, error?: string, stderr?: string}>,
 *   problem: {title: string, reason: string, stderr: string, fix: string, command: string}|null,
 *   advice: string, command: string, startBlocked: string}}
 */
export function hostView(r, { extensionId = '<extension id>' } = {}) {
  const h = r?.health;
  if (h && h.ok) {
    const providers = (h.providers || []).map((p) => ({
      name: String(p.name || '?'), prefix: String(p.prefix || '?'), state: String(p.state || 'unknown'),
      ...(p.error ? { error: String(p.error) } : {}), ...(p.stderr ? { stderr: String(p.stderr) } : {}),
    }));
    const down = providers.filter((p) => p.state === 'down');
    const starting = providers.filter((p) => p.state === 'starting');
    let problem = null;
    if (down.length) {
      const p = down[0];
      problem = {
        title: `${p.name} could not start`,
        reason: p.error || `${p.name} is down.`,
        stderr: p.stderr || '',
        fix: `Check ${p.name}'s command in the host configuration (for Munim: the path to munim.exe), then run gnosis-host doctor to try it the way the browser does.`,
        command: 'gnosis-host install --munim "PATH-TO-munim.exe"',
      };
    } else if (h.error) {
      problem = { title: 'The host configuration has a problem', reason: String(h.error), stderr: '', fix: 'Fix the configuration file, then run gnosis-host doctor.', command: 'gnosis-host doctor' };
    }
    let kind = 'connected';
    let chip = 'Connected';
    let line = 'Connected — all providers ready';
    if (problem) {
      kind = 'degraded';
      chip = down.length ? `${down[0].name} down` : 'Degraded';
      line = `Connected — degraded: ${problem.title}`;
    } else if (starting.length || h.status !== 'ok') {
      kind = 'degraded';
      chip = starting.length ? `Starting ${starting.map((p) => p.name).join(', ')}…` : 'Degraded';
      line = `Connected — ${starting.length ? `starting ${starting.map((p) => p.name).join(', ')}…` : 'degraded'}`;
    }
    return { kind, chip, line, connected: true, providers, problem, advice: '', command: '', startBlocked: '' };
  }
  const err = r?.error || (h && !h.ok ? { code: h.code, message: h.message } : null);
  if (!err) {
    return { kind: 'checking', chip: 'Checking…', line: 'Checking the host…', connected: false, providers: [], problem: null, advice: '', command: '', startBlocked: 'Checking whether the host answers…' };
  }
  const forbidden = err.code === TRANSPORT_CODES.HOST_FORBIDDEN || err.code === CODES.FORBIDDEN;
  const advice = forbidden
    ? `The host's manifest does not list this extension (id ${extensionId}) in allowed_origins. In a terminal, run:`
    : err.advice || '';
  return {
    kind: 'down', chip: 'Not connected',
    line: `Not connected${err.code ? ` (${err.code})` : ''}${err.message ? `: ${err.message}` : ''}`,
    connected: false, providers: [], problem: null, advice,
    command: forbidden ? allowCommand(extensionId) : '',
    startBlocked: 'Start needs the host: it is not connected (see Host above).',
  };
}

/** One provider as the options page lists it: "munim (computer.*) ready". */
export function providerLine(p) {
  return `${p.name} (${p.prefix}.*) ${p.state}`;
}

/**
 * A call's progress as one line: "running computer.copy — 40% · copying files".
 * Without a total the count is shown as is ("3 done").
 * @param {string} capability
 * @param {{progress?: number, total?: number, message?: string}} [p]
 */
export function progressText(capability, p) {
  const parts = [];
  const pct = progressPercent(p);
  if (pct !== null) parts.push(`${pct}%`);
  else if (Number.isFinite(p?.progress)) parts.push(`${formatNumber(p.progress)} done`);
  if (typeof p?.message === 'string' && p.message.trim()) parts.push(p.message.trim());
  return `running ${capability}${parts.length ? ` — ${parts.join(' · ')}` : ''}`;
}

/** Whole percent of a progress report with a positive total, clamped to 0..100; null without one. */
export function progressPercent(p) {
  if (!Number.isFinite(p?.progress) || !Number.isFinite(p?.total) || p.total <= 0) return null;
  return Math.max(0, Math.min(100, Math.floor((p.progress / p.total) * 100)));
}

function formatNumber(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/**
 * A retry's line while it waits: "HTTP 503 — retrying in 4 s (attempt 2)".
 * @param {{reason: string, attempt: number, until: number}} retry until: when the next try starts (ms epoch)
 * @param {number} now ms epoch
 */
export function retryText(retry, now) {
  const left = Math.max(0, Math.ceil((retry.until - now) / 1000));
  const when = left > 0 ? `retrying in ${left} s` : 'retrying now';
  return `${retry.reason} — ${when} (attempt ${retry.attempt + 1})`;
}
