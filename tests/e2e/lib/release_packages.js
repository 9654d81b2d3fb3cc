// The release as a person downloads it, for the tests that install it the
// way they do: the extension's packages built by the real release tool
// (install/release, only the packages asked for, so no host is cross-built),
// a gnosis-host stamped with the release's version (make build's, or one
// built here), and that host installed by its own `install` into a
// temporary home, whose manifest says which extension ids it lets in.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, hostBinary } from './harness.js';

/** The release's one version (the VERSION file), stamped into the host, the manifests and the file names. */
export const VERSION = fs.readFileSync(path.join(REPO, 'VERSION'), 'utf8').trim();

/**
 * Runs `go run ./install/release -out <dir> -packages <kinds>` (kinds: chrome,
 * chrome-store, firefox) and returns the folder, whose SHA256SUMS lists what it wrote.
 */
export function buildPackages(dir, kinds) {
  execFileSync('go', ['run', './install/release', '-out', dir, '-packages', kinds.join(',')], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

/** The files SHA256SUMS in dir lists, by name. */
export function checksummed(dir) {
  return fs.readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(/\s+\*?/)[1]);
}

/** Unzips zip into dir (a folder of its own, as Windows' Extract All makes) and returns dir. */
export function unzip(zip, dir) {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('unzip', ['-q', zip, '-d', dir]);
  return dir;
}

/**
 * A gnosis-host whose `version` is VERSION: bin/gnosis-host when make build
 * stamped it so, else one built into dir with -X main.version, as make build does.
 */
export function releaseHost(dir) {
  const bin = hostBinary();
  if (execFileSync(bin, ['version'], { encoding: 'utf8' }).trim() === `gnosis-host ${VERSION}`) return bin;
  const out = path.join(dir, 'gnosis-host');
  execFileSync('go', ['build', '-trimpath', '-ldflags', `-X main.version=${VERSION}`, '-o', out, './cmd/gnosis-host'], { cwd: REPO, stdio: 'inherit' });
  return out;
}

/**
 * Installs host for one browser (`gnosis-host install --browsers <browser>`)
 * into the home folder home, as a person does, and returns the host manifest
 * it wrote there: {path (the installed binary), allowed_origins | allowed_extensions}.
 */
export function installHost(host, home, browser) {
  fs.mkdirSync(home, { recursive: true });
  execFileSync(host, ['install', '--browsers', browser], { env: { PATH: '/usr/bin:/bin', HOME: home }, stdio: 'ignore' });
  const where = { chromium: path.join(home, '.config', 'chromium'), firefox: path.join(home, '.mozilla') }[browser];
  const dir = browser === 'firefox' ? 'native-messaging-hosts' : 'NativeMessagingHosts';
  return JSON.parse(fs.readFileSync(path.join(where, dir, 'com.gnosis.host.json'), 'utf8'));
}
