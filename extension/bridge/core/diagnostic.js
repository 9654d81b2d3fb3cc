// The diagnostic report a person pastes into a bug report: the extension's
// own lines (its version, the protocols it speaks, the browser, the system,
// the download location with a mirror's token hidden, how the host answers)
// above the host's own redacted report (the host's report method). Nothing
// of the extension's settings goes in: no API key, no site, no grant. Pure.

import { rangeText } from '../../shared/core/protocol.js';
import { redactLocation } from '../../shared/core/host_install.js';

/**
 * @param {object} o
 * @param {string} o.extensionVersion
 * @param {string} [o.installType] chrome.management.getSelf().installType
 * @param {{min: number, max: number}} o.range the protocols the extension speaks
 * @param {string} o.browser e.g. "Chromium 131.0.6778.85"
 * @param {{os: string, arch: string}} o.platform chrome.runtime.getPlatformInfo()
 * @param {string} o.location the download location in use
 * @param {boolean} o.defaultLocation whether it is the release's own
 * @param {{health?: object|null, error?: {code?: string, message?: string}|null}} o.host what bridge.hostStatus says
 * @param {string} [o.hostReport] the host's report text
 * @param {string} [o.hostReportError] why there is none
 * @returns {string}
 */
export function diagnosticReport(o) {
  const lines = [
    '# Gnosis diagnostic report',
    '',
    "The extension's part below holds none of your settings. Read the whole report before you share it.",
    '',
    '## Extension',
    '',
    `extension: ${o.extensionVersion}${o.installType ? ` (${o.installType})` : ''}`,
    `protocols: ${rangeText(o.range)}`,
    `browser: ${o.browser || 'unknown'}`,
    `system: ${o.platform?.os || '?'}/${o.platform?.arch || '?'}`,
    `download location: ${o.defaultLocation ? "the release's own" : redactLocation(o.location)}`,
    `host: ${hostLine(o.host)}`,
    '',
    '## Host',
    '',
  ];
  const hostPart = o.hostReport ? String(o.hostReport) : `The host's report is missing: ${o.hostReportError || 'the host did not answer'}.\n`;
  return `${lines.join('\n')}\n${hostPart}`;
}

/** How the host answered, in one line with its codes (a report is for people who read codes). */
function hostLine(host) {
  const h = host?.health;
  if (h?.ok) {
    const protocol = Object.hasOwn(h, 'protocol') ? h.protocol : '1 (none reported)';
    return `answers: version ${h.version || '?'}, protocol ${protocol}, status ${h.status || '?'}, ${h.capabilities ?? 0} capabilities`;
  }
  const e = host?.error;
  if (e) return `does not answer: ${e.code || 'error'}${e.message ? ` (${e.message})` : ''}`;
  return 'not checked yet';
}
