// README's table of what the extension shows when it cannot reach the host
// ("When the extension cannot connect", written from register.Faults in
// host/register/faults.go), read back so the browser suites can check each
// browser's messages against it, and the set-up of each fault on Linux.
import fs from 'node:fs';
import path from 'node:path';
import { EXTENSION_ORIGIN, HOST_NAME, REPO } from './harness.js';

/**
 * The table's rows: {cause, chromium, firefox}, each browser's entry the
 * list of messages it may give (Chromium's Windows-only one left out; an
 * empty list when the connection closes without a message).
 */
export function readmeFaults() {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const lines = readme.slice(readme.indexOf('| what is wrong |')).split('\n');
  const quoted = (cell) => [...cell.split(' (Windows:')[0].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  return lines.slice(2, lines.findIndex((l) => !l.startsWith('|'))).map((l) => {
    const cells = l.split(' | ');
    return { cause: cells[0].slice(2), chromium: quoted(cells[1]), firefox: quoted(cells[2]) };
  });
}

/**
 * Writes, in dir, what makes the fault whose cause is given happen, and
 * returns the manifest's text (null: no manifest at all). A cause without a
 * set-up throws, so that a new row of the table gets one.
 */
export function faultManifest(cause, dir, field = 'allowed_origins') {
  const ours = field === 'allowed_origins' ? EXTENSION_ORIGIN : 'gnosis@gnosis.dev';
  const other = field === 'allowed_origins' ? 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/' : 'other@example.org';
  const manifest = (fields) => JSON.stringify({ name: HOST_NAME, description: 'fault', type: 'stdio', [field]: [ours], ...fields });
  const script = (name, body, mode = 0o755) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode });
    return file;
  };
  const setups = [
    ['is not installed', () => null],
    ['the manifest is there but unusable', () => '{"name": "com.gnosis.host",'],
    ['does not list this extension', () => manifest({ path: '/bin/true', [field]: [other] })],
    ['program its manifest names was moved or deleted', () => manifest({ path: path.join(dir, 'gone') })],
    ['cannot start it', () => manifest({ path: script('not-executable', 'exit 0', 0o644) })],
    ['started and stopped', () => manifest({ path: script('exits', 'head -c 4 >/dev/null\nexit 3') })],
    ['not a message', () => manifest({ path: script('garbage', 'head -c 4 >/dev/null\nprintf "hello, not a frame"\nsleep 5') })],
  ];
  const setup = setups.find(([phrase]) => cause.includes(phrase));
  if (!setup) throw new Error(`no set-up for the fault "${cause}"`);
  return setup[1]();
}

/** Whether got is one of the messages the table quotes (N stands for a number). */
export function quotes(messages, got) {
  if (messages.length === 0) return got === null;
  return messages.some((m) => new RegExp(`^${m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\bN\b/g, '\\d+')}$`).test(got ?? ''));
}
