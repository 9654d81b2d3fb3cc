// What the pages say about gnosis-host: connected, starting, a server that is
// down with its own stderr, no server yet, a host the browser cannot reach
// (each transport failure with the browser's own words kept apart from the
// advice), and a host whose protocol does not fit. Every text is true on the
// system it is shown on and carries no raw code or backtick.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowCommand, hostView, logPath, providerLine, shownState } from '../../../shared/core/host_view.js';

const ready = { name: 'munim', prefix: 'computer', state: 'ready', capabilities: 15 };
const healthy = (extra = {}) => ({ health: { ok: true, status: 'ok', version: '0.1.0', protocol: 2, capabilities: 17, providers: [ready], ...extra } });

/** Every text a view puts in prose (not the commands, not the host's own words). */
function prose(v) {
  return [v.chip, v.line, v.advice, v.startBlocked, v.problem?.title, v.problem?.fix, v.update?.title, v.update?.message].filter(Boolean);
}
function assertCleanProse(v) {
  for (const t of prose(v)) {
    assert.doesNotMatch(t, /`/, `backtick in ${JSON.stringify(t)}`);
    assert.doesNotMatch(t, /\b[A-Z]+_[A-Z_]+\b/, `raw code in ${JSON.stringify(t)}`);
  }
}

test('every provider ready is connected, with the version and protocol', () => {
  const v = hostView(healthy());
  assert.deepEqual([v.kind, v.chip, v.chipClass, v.line, v.connected, v.problem, v.startBlocked, v.code], ['connected', 'Connected', 'connected', 'Connected — all providers ready', true, null, '', '']);
  assert.equal(v.version, '0.1.0 · protocol 2');
  assert.equal(v.capabilities, 17);
  assert.equal(providerLine(v.providers[0]), 'munim (computer.*) · ready · 15 tools');
});

test('a provider still starting is degraded and says so, never "ready"', () => {
  const v = hostView(healthy({ status: 'degraded', providers: [{ ...ready, state: 'starting', capabilities: 0 }] }));
  assert.equal(v.kind, 'degraded');
  assert.equal(v.chip, 'Starting munim…');
  assert.equal(v.problem, null);
  assert.equal(providerLine(v.providers[0]), 'munim (computer.*) · starting');
});

test("a provider that is down shows the server's reason, its stderr, and where to fix it", () => {
  const down = { ...ready, state: 'down', capabilities: 0, error: 'exited (exit status 3) before answering initialize', stderr: 'line one\nline two' };
  const v = hostView(healthy({ status: 'degraded', providers: [down] }), { page: 'options' });
  assert.deepEqual([v.kind, v.chip, v.problem.title, v.problem.tone], ['degraded', 'munim down', 'munim could not start', 'error']);
  assert.equal(v.problem.stderr, 'line one\nline two');
  assert.match(v.problem.fix, /setup page/);
  assert.equal(v.problem.setupLink, true);
  assert.equal(v.problem.command, 'gnosis-host doctor');
  assertCleanProse(v);
  assert.doesNotMatch(JSON.stringify(v), /munim\.exe/, 'no Windows file name on a page that may be on Linux');
});

test('a server the host tries again after it failed reads the same at each retry: down, with its reason and stderr, never "starting"', () => {
  const failure = { error: 'exited (exit status 3) before answering initialize', stderr: 'munim: giving up' };
  const views = ['down', 'starting'].map((state) => hostView(healthy({ status: 'degraded', providers: [{ ...ready, state, capabilities: 0, ...failure }] })));
  const seen = (v) => [v.kind, v.chip, v.line, v.problem?.title, v.problem?.reason, v.problem?.stderr, providerLine(v.providers[0])];
  assert.deepEqual(seen(views[1]), seen(views[0]));
  assert.deepEqual(seen(views[1]), ['degraded', 'munim down', 'Connected — munim could not start', 'munim could not start', failure.error, failure.stderr, 'munim (computer.*) · down']);
  assert.equal(shownState({ state: 'starting' }), 'starting', 'a first start has no error: it is starting');
  assert.equal(shownState({ state: 'ready', error: 'old' }), 'ready');
});

test('the setup page\'s host step is about the host alone: its MCP servers have their own step', () => {
  const down = { ...ready, state: 'down', capabilities: 0, error: 'exited', stderr: 'x' };
  for (const providers of [[down], [], [{ ...ready, state: 'starting' }]]) {
    const v = hostView(healthy({ status: 'degraded', providers, error: providers.length ? undefined : 'no provider configured: set MUNIM_PATH or add providers to /x' }), { page: 'setup' });
    assert.deepEqual([v.kind, v.chip, v.problem, v.connected], ['connected', 'Connected', null, true], JSON.stringify(providers));
  }
  const broken = hostView(healthy({ status: 'degraded', error: 'config: invalid JSON at line 3, column 7' }), { page: 'setup' });
  assert.equal(broken.problem.title, 'The host configuration has a problem', 'a broken configuration is the host\'s own problem');
});

test('no MCP server yet is said plainly, without the host\'s terminal wording', () => {
  const v = hostView(healthy({ status: 'degraded', providers: [], capabilities: 2, error: 'no provider configured: set MUNIM_PATH or add providers to /home/me/.config/gnosis/config.json' }));
  assert.deepEqual([v.kind, v.chip, v.problem.title, v.problem.tone, v.problem.setupLink, v.connected], ['degraded', 'No MCP server', 'No MCP server yet', 'warn', true, true]);
  assert.match(v.problem.fix, /add one on the setup page/);
  assert.doesNotMatch(JSON.stringify(v), /MUNIM_PATH/);
});

test('a configuration error is a problem even with no provider down', () => {
  const v = hostView(healthy({ status: 'degraded', error: 'config: invalid JSON at line 3, column 7' }));
  assert.equal(v.problem.title, 'The host configuration has a problem');
  assert.equal(v.problem.reason, 'config: invalid JSON at line 3, column 7');
});

test('each way the browser fails to reach the host: its own words apart, advice for this system, Start blocked', () => {
  const table = [
    { code: 'HOST_NOT_FOUND', message: 'Specified native messaging host not found.', chip: 'Not found', install: true, command: '' },
    { code: 'HOST_FORBIDDEN', message: 'Access to the specified native messaging host is forbidden.', chip: 'Not allowed', install: false, command: allowCommand('abcdefghijklmnopabcdefghijklmnop') },
    { code: 'HOST_EXITED', message: 'Native host has exited.', chip: 'Stopped', install: false, command: 'gnosis-host doctor' },
    { code: 'HOST_ERROR', message: 'Error when communicating with the native messaging host.', chip: 'Not connected', install: false, command: 'gnosis-host doctor' },
    { code: 'TIMEOUT', message: 'health timed out after 5000 ms', chip: 'Not answering', install: false, command: 'gnosis-host doctor' },
  ];
  for (const row of table) {
    const v = hostView({ error: { code: row.code, message: row.message, advice: 'Run `gnosis-host install`.' } }, { extensionId: 'abcdefghijklmnopabcdefghijklmnop' });
    assert.deepEqual([v.kind, v.chip, v.code, v.said, v.install, v.command, v.connected], ['down', row.chip, row.code, row.message, row.install, row.command, false], row.code);
    assert.match(v.startBlocked, /does not answer/, row.code);
    assert.doesNotMatch(v.line, new RegExp(row.message.replace(/[.]/g, '\\.')), 'the browser\'s words are not mixed into the line');
    assertCleanProse(v);
  }
  const forbidden = hostView({ error: { code: 'HOST_FORBIDDEN', message: '' } }, { extensionId: 'abcdefghijklmnopabcdefghijklmnop' });
  assert.match(forbidden.advice, /id abcdefghijklmnopabcdefghijklmnop\) in allowed_origins/);
});

test("a host that stops names this system's log file", () => {
  assert.match(hostView({ error: { code: 'HOST_EXITED' } }, { os: 'win' }).advice, /%LOCALAPPDATA%\\gnosis\\gnosis-host\.log/);
  assert.match(hostView({ error: { code: 'HOST_EXITED' } }, { os: 'linux' }).advice, /~\/\.cache\/gnosis\/gnosis-host\.log/);
  assert.equal(logPath('mac'), '~/Library/Caches/gnosis/gnosis-host.log');
});

test('a host whose protocol does not fit: update needed, which side is older, nothing started', () => {
  const older = hostView({ health: { ok: true, status: 'ok', version: '0.0.9', capabilities: 12, providers: [ready] } }, { extensionVersion: '0.1.0' });
  assert.deepEqual([older.kind, older.chip, older.code, older.connected, older.answers], ['incompatible', 'Update needed', 'HOST_INCOMPATIBLE', false, true]);
  assert.equal(older.update.older, 'host');
  assert.equal(older.update.title, 'gnosis-host is older than this extension');
  assert.match(older.update.message, /gnosis-host 0\.0\.9 speaks protocol 1; this extension \(0\.1\.0\) speaks protocol 2/);
  assert.equal(older.version, '0.0.9 · protocol 1');
  assert.match(older.startBlocked, /update first/);
  assertCleanProse(older);
  const newer = hostView({ health: { ok: true, status: 'ok', version: '0.9.0', protocol: 9, providers: [] } }, { extensionVersion: '0.1.0' });
  assert.equal(newer.update.older, 'extension');
  assert.equal(newer.problem, null, 'no "no MCP server" card while the versions do not fit');
});

test('nothing known yet is "checking", and Start waits', () => {
  const v = hostView({ status: { state: 'idle' }, health: null, error: null });
  assert.equal(v.kind, 'checking');
  assert.ok(v.startBlocked);
});
