// The diagnostic report: the extension's versions, protocols, browser and
// system above the host's own redacted report; a mirror's token hidden;
// nothing of the extension's settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnosticReport } from '../../../bridge/core/diagnostic.js';

const base = {
  extensionVersion: '0.1.0', installType: 'development', range: { min: 2, max: 2 }, browser: 'Chromium 131.0.6778.85',
  platform: { os: 'linux', arch: 'x86-64' }, location: 'https://github.com/gnosis/gnosis/releases/download/v{version}/', defaultLocation: true,
};

test('the extension part names its version, protocols, browser and system above the host part', () => {
  const text = diagnosticReport({ ...base, host: { health: { ok: true, version: '0.1.0', protocol: 2, status: 'ok', capabilities: 14 } }, hostReport: 'Gnosis diagnostic report: …\n\n## Versions\n\nhost: 0.1.0\n' });
  assert.match(text, /^# Gnosis diagnostic report\n/);
  for (const line of ['extension: 0.1.0 (development)', 'protocols: 2', 'browser: Chromium 131.0.6778.85', 'system: linux/x86-64', "download location: the release's own",
    'host: answers: version 0.1.0, protocol 2, status ok, 14 capabilities']) assert.ok(text.includes(`\n${line}\n`), line);
  assert.ok(text.indexOf('## Extension') < text.indexOf('## Host') && text.indexOf('## Host') < text.indexOf('## Versions'));
});

test('an older host (no protocol field) and a host that does not answer are said as such', () => {
  assert.match(diagnosticReport({ ...base, host: { health: { ok: true, version: '0.0.9', status: 'ok' } }, hostReportError: 'report was not sent' }),
    /host: answers: version 0\.0\.9, protocol 1 \(none reported\)[\s\S]*The host's report is missing: report was not sent\./);
  assert.match(diagnosticReport({ ...base, host: { error: { code: 'HOST_NOT_FOUND', message: 'Specified native messaging host not found.' } } }),
    /host: does not answer: HOST_NOT_FOUND \(Specified native messaging host not found\.\)/);
});

test("a mirror's location keeps its shape, not its token", () => {
  const text = diagnosticReport({ ...base, defaultLocation: false, location: 'https://mirror.example.org/g/?token=tok-123456', host: {} });
  assert.match(text, /download location: https:\/\/mirror\.example\.org\/g\/\?token=\[redacted\]/);
  assert.doesNotMatch(text, /tok-123456/);
});
