// The real gnosis-host for node tests, started as Chrome starts it and spoken
// to through the extension's own NativeClient over the child's stdio. Tests of
// modules that talk to the host (workspace, relay) share it rather than each
// carrying a copy of the framing and the process handling. node --test also
// loads this file as a test file; it has no tests and no side effects.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeClient } from '../../shared/native_client.js';

/** Our extension's origin, which Chrome passes as the host's argv[1]. */
export const ORIGIN = 'chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** Frames a child's stdio as a chrome.runtime.Port (length-prefixed JSON). */
export function stdioPort(child) {
  const onMessage = [];
  const onDisconnect = [];
  let buf = Buffer.alloc(0);
  child.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4) {
      const n = buf.readUInt32LE(0);
      if (buf.length < 4 + n) break;
      const msg = JSON.parse(buf.subarray(4, 4 + n).toString('utf8'));
      buf = buf.subarray(4 + n);
      for (const f of onMessage) f(msg);
    }
  });
  child.on('exit', () => { for (const f of onDisconnect) f(); });
  return {
    postMessage(m) {
      const body = Buffer.from(JSON.stringify(m));
      const head = Buffer.alloc(4);
      head.writeUInt32LE(body.length);
      child.stdin.write(Buffer.concat([head, body]));
    },
    disconnect() { child.stdin.end(); },
    onMessage: { addListener: (f) => onMessage.push(f) },
    onDisconnect: { addListener: (f) => onDisconnect.push(f) },
  };
}

/**
 * Builds cmd/gnosis-host into dir, writes config as dir/config.json and
 * starts the host with it. onStderr, when given, receives the host's stderr
 * (otherwise ignored). Returns the child, a NativeClient connected to it, and
 * stop(), which closes the port and resolves when the host has exited.
 */
export function startRealHost({ dir, config, onStderr }) {
  const bin = join(dir, 'gnosis-host');
  execFileSync('go', ['build', '-o', bin, './cmd/gnosis-host'], { cwd: repo, stdio: 'inherit' });
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const child = spawn(bin, [ORIGIN], {
    env: { ...process.env, GNOSIS_CONFIG: configPath },
    stdio: ['pipe', 'pipe', onStderr ? 'pipe' : 'ignore'],
  });
  if (onStderr) child.stderr.on('data', onStderr);
  const host = new NativeClient(() => stdioPort(child), { autoReconnect: false, probe: false, lastError: () => undefined });
  const stop = async () => {
    host.close();
    await new Promise((r) => (child.exitCode !== null ? r() : child.on('exit', r)));
  };
  return { child, host, stop };
}
