// Which bundled host binary fits this machine: maps chrome.runtime.getPlatformInfo()
// ({os, arch}) to Go's GOOS/GOARCH and the file name `make dist` produces in
// extension/hostbin/. Pure.

const GOOS = { win: 'windows', mac: 'darwin', linux: 'linux', cros: 'linux', openbsd: 'openbsd' };
const GOARCH = { 'x86-64': 'amd64', 'x86-32': '386', arm64: 'arm64', arm: 'arm' };

/**
 * @param {{os: string, arch: string}} info chrome.runtime.PlatformInfo
 * @returns {{goos: string, goarch: string, file: string, path: string}|null} null when we ship no build for it
 */
export function hostBinaryFor(info) {
  const goos = GOOS[info?.os];
  const goarch = GOARCH[info?.arch];
  if (!goos || !goarch) return null;
  const file = `gnosis-host-${goos}-${goarch}${goos === 'windows' ? '.exe' : ''}`;
  return { goos, goarch, file, path: `hostbin/${file}` };
}

/** What to tell the person after the download, per OS. */
export function installAdvice(goos, file) {
  if (goos === 'windows') return `Open ${file} from your downloads: it registers itself with your browsers.`;
  return `In a terminal: chmod +x ~/Downloads/${file} && ~/Downloads/${file} install`;
}
