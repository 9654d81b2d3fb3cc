// Firefox on Linux looks for a native-messaging host in the user's folder
// (~/.mozilla/native-messaging-hosts) and then in a system folder compiled
// into Firefox (/usr/lib/mozilla/native-messaging-hosts, /usr/lib64/... on
// some distributions); no environment variable or preference moves the
// system one. Where Gnosis is installed system-wide (the .deb, the .rpm),
// the tests hide those folders from the Firefox they start, in a mount
// namespace of its own (unshare), so that the machine's own registration
// never stands in for the one a test sets up or removes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOST_NAME } from '../../e2e/lib/harness.js';

/** The system folders Firefox reads host manifests from on Linux. */
export const SYSTEM_HOST_DIRS = ['/usr/lib/mozilla/native-messaging-hosts', '/usr/lib64/mozilla/native-messaging-hosts'];

/** The system folders that hold a manifest for our host. */
export function systemRegistrations(dirs = SYSTEM_HOST_DIRS) {
  return dirs.filter((d) => fs.existsSync(path.join(d, `${HOST_NAME}.json`)));
}

// Bind-mounts $1 (an empty folder) over each folder up to "--", then runs the rest.
const HIDE_SCRIPT = 'e=$1; shift; while [ "$1" != -- ]; do mount --bind "$e" "$1" || exit 97; shift; done; shift; exec "$@"';

/**
 * The command that runs cmd with args where dirs are empty, or null when this
 * machine cannot (no unshare, or user namespaces not allowed).
 */
export function hidingCommand(cmd, args, dirs, emptyDir) {
  if (dirs.length === 0) return { cmd, args };
  if (!canHide(dirs, emptyDir)) return null;
  return { cmd: 'unshare', args: ['--user', '--map-root-user', '--mount', '--', 'sh', '-c', HIDE_SCRIPT, 'sh', emptyDir, ...dirs, '--', cmd, ...args] };
}

function canHide(dirs, emptyDir) {
  fs.mkdirSync(emptyDir, { recursive: true });
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--mount', '--', 'sh', '-c', HIDE_SCRIPT, 'sh', emptyDir, ...dirs, '--',
    'sh', '-c', 'for d; do [ -z "$(ls -A "$d")" ] || exit 98; done', 'sh', ...dirs], { stdio: 'ignore', timeout: 10_000 });
  return probe.status === 0;
}

/** Why a test that needs no system registration cannot run here, or "" if it can. */
export function unhideableReason() {
  const dirs = systemRegistrations();
  if (dirs.length === 0) return '';
  const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnosis-no-hosts-'));
  const can = hidingCommand('true', [], dirs, emptyDir) !== null;
  fs.rmSync(emptyDir, { recursive: true, force: true });
  if (can) return '';
  return `Gnosis is registered system-wide for Firefox (${dirs.map((d) => path.join(d, `${HOST_NAME}.json`)).join(', ')}), ` +
    'and this machine cannot hide that folder from the test\'s Firefox (unshare --user --mount failed): ' +
    'remove the system package (dpkg -r gnosis-host, or rpm -e gnosis-host) or allow user namespaces to run this test';
}
