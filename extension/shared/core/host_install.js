// Getting gnosis-host onto this system, and updating whichever side of the
// handshake is older: which release file fits this OS and architecture, its
// address at the release download location (release.js's, or one the person
// set for a fork or a mirror), what to do with the file once downloaded, and
// the exact update for a host or an extension that does not fit. Pure: the
// pages pass chrome.runtime.getPlatformInfo(), the manifest's version and
// the stored location in.

import { CHECKSUMS, DOWNLOAD_URL, EXTENSION_PACKAGES, HOST_PACKAGES } from './release.js';

/** chrome.runtime.PlatformInfo's os and arch in Go's names, which the release's file names use. */
const GOOS = { win: 'windows', mac: 'darwin', linux: 'linux', cros: 'linux', openbsd: 'openbsd' };
const GOARCH = { 'x86-64': 'amd64', 'x86-32': '386', arm64: 'arm64', arm: 'arm' };

/** How people call each system and architecture. */
const OS_NAMES = { windows: 'Windows', darwin: 'macOS', linux: 'Linux', openbsd: 'OpenBSD' };
const ARCH_NAMES = { amd64: 'x86-64', arm64: 'Arm 64-bit', 386: 'x86 32-bit', arm: 'Arm 32-bit' };

/** The release's default download location (release.js), {version} left in. */
export const DEFAULT_LOCATION = DOWNLOAD_URL;

/** The command that builds and registers the host in a source checkout. */
export const SOURCE_INSTALL = 'make install';
/** The command that updates a source checkout and reinstalls the host from it. */
export const SOURCE_UPDATE = 'git pull && make install';

/**
 * @param {{os: string, arch: string}} info chrome.runtime.PlatformInfo
 * @returns {{goos: string, goarch: string, name: string}|null} name: "Linux (x86-64)"
 */
export function goPlatform(info) {
  const goos = GOOS[info?.os];
  const goarch = GOARCH[info?.arch];
  if (!goos || !goarch) return null;
  return { goos, goarch, name: `${OS_NAMES[goos] || goos} (${ARCH_NAMES[goarch] || goarch})` };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Checks a download location the person typed: an https:// folder (http://
 * only on this machine: a package fetched in the clear could be swapped on
 * the way), without a user name or password, ending in "/"; {version} may
 * stand for the version. Returns '' when it is fine, else what to change.
 */
export function checkLocation(text) {
  const s = String(text || '').trim();
  let url;
  try {
    url = new URL(s.replaceAll('{version}', '0'));
  } catch {
    return 'Give a web address, e.g. https://example.com/gnosis/{version}/';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
    return 'Use an https:// address (http:// only for this machine: a download in the clear could be swapped on the way).';
  }
  if (url.username || url.password) return 'Leave the user name and password out of the address.';
  if (!s.endsWith('/')) return 'End the address with a slash: it is the folder that holds the release files.';
  return '';
}

/**
 * Whether a stored download location is still one to fetch from: a web
 * address over https (http only on this machine) without a user name or
 * password. The worker asks on every read, whoever wrote the value.
 */
export function safeLocation(text) {
  try {
    const url = new URL(String(text || '').trim().replaceAll('{version}', '0'));
    return (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname))) && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** The folder of version's release files at location. */
export function folderFor(location, version) {
  return String(location || DEFAULT_LOCATION).replaceAll('{version}', version);
}

/** What each kind of package is, for its button and its link. */
const KIND_LABELS = { msi: 'Windows installer (.msi)', deb: 'Debian and Ubuntu (.deb)', rpm: 'Fedora and openSUSE (.rpm)', zip: 'zip archive' };

/**
 * The host's packages for this system at location, the one to offer first
 * first, with the checksum file's address.
 * @param {{os: string, arch: string}} info
 * @param {{location?: string, version: string}} where
 * @returns {{platform: string, packages: Array<{file: string, url: string, kind: string, label: string}>, checksums: string}|null}
 *   null when the release has no host for this system
 */
export function hostDownloads(info, { location, version }) {
  const p = goPlatform(info);
  const files = p && HOST_PACKAGES[`${p.goos}/${p.goarch}`];
  if (!files) return null;
  const folder = folderFor(location, version);
  return {
    platform: p.name,
    packages: files.map((pattern) => {
      const file = pattern.replaceAll('{version}', version);
      const kind = file.slice(file.lastIndexOf('.') + 1);
      return { file, url: folder + file, kind, label: KIND_LABELS[kind] || kind };
    }),
    checksums: folder + CHECKSUMS,
  };
}

/**
 * What to do with a downloaded package, on this system.
 * @param {{kind: string, file: string}} pkg
 * @param {{os: string}} info
 * @param {string} [path] where the browser saved it (chrome.downloads' filename), when known
 * @returns {{text: string, command: string}} command: a terminal alternative ('' when there is none)
 */
export function installSteps(pkg, info, path = '') {
  const arg = path ? shellWord(path) : `./${pkg.file}`;
  const text = `Open ${pkg.file} from your downloads with your software installer, or install it from a terminal. It installs gnosis-host and registers it with every browser.`;
  switch (pkg.kind) {
    case 'msi':
      return { text: `Open ${pkg.file} from your downloads. It installs gnosis-host for you alone (no administrator rights) and registers it with your browsers.`, command: '' };
    case 'deb':
      return { text, command: `sudo apt install ${arg}` };
    case 'rpm':
      return { text, command: `sudo dnf install ${arg}` };
    default:
      if (info?.os === 'win') return { text: `Unzip ${pkg.file}, then double-click gnosis-host.exe in it: it registers itself with your browsers.`, command: '' };
      return { text: `Unzip ${pkg.file}, then run gnosis-host from it: it registers itself with your browsers.`, command: './gnosis-host install' };
  }
}

/** A path as one word of a POSIX shell command. */
function shellWord(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/** A release version (0.1.0, 1.2.3-rc.1): the only kind whose files a release location holds. */
const RELEASE_VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/**
 * The exact update for the older side of a misfit.
 * @param {'host'|'extension'|null} older from protocolFit
 * @param {object} ctx
 * @param {{os: string, arch: string}} ctx.info
 * @param {string} [ctx.location] the download location
 * @param {string} ctx.extensionVersion
 * @param {string} [ctx.hostVersion]
 * @param {string} [ctx.installType] chrome.management.getSelf().installType ('development' when loaded unpacked)
 * @param {boolean} [ctx.firefox]
 * @returns {{text: string, downloads: ReturnType<typeof hostDownloads>|null, link: {label: string, url: string}|null, source: {text: string, command: string}}}
 */
export function updatePlan(older, { info, location, extensionVersion, hostVersion = '', installType = '', firefox = false }) {
  const extensionsPage = firefox ? 'about:addons' : 'chrome://extensions';
  if (older === 'extension') {
    const pkg = firefox ? EXTENSION_PACKAGES.firefox : EXTENSION_PACKAGES.chrome;
    const link = RELEASE_VERSION.test(hostVersion)
      ? { label: pkg.replaceAll('{version}', hostVersion), url: folderFor(location, hostVersion) + pkg.replaceAll('{version}', hostVersion) }
      : null;
    let text;
    if (installType === 'development') text = `This extension was loaded from a folder (Load unpacked): update the folder, then press Reload on Gnosis in ${extensionsPage}.`;
    else if (installType === 'normal') text = `Your browser updates the extension from its store by itself. To update now, open ${extensionsPage}${firefox ? ' and choose Check for Updates' : ', turn on Developer mode and press Update'}.`;
    else text = `Install the extension of the same release as gnosis-host${hostVersion ? ` ${hostVersion}` : ''}${link ? ' (below)' : ''}.`;
    return { text, downloads: null, link, source: { text: `From a source checkout: update it, then press Reload on Gnosis in ${extensionsPage}.`, command: 'git pull' } };
  }
  const downloads = info ? hostDownloads(info, { location, version: extensionVersion }) : null;
  return {
    text: downloads
      ? `Install gnosis-host ${extensionVersion}, the release that matches this extension, over the one you have: your settings and MCP servers are kept.`
      : `Install gnosis-host ${extensionVersion}, the release that matches this extension.`,
    downloads, link: null,
    source: { text: 'From a source checkout, in the repository:', command: SOURCE_UPDATE },
  };
}

/**
 * Hides what a location's address may carry that is not for a report: the
 * query's values (a mirror's token) and any user name or password.
 */
export function redactLocation(text) {
  try {
    const url = new URL(String(text).replaceAll('{version}', '__VERSION__'));
    url.username = url.username ? 'redacted' : '';
    url.password = url.password ? 'redacted' : '';
    for (const k of [...url.searchParams.keys()]) url.searchParams.set(k, '[redacted]');
    return url.toString().replaceAll('__VERSION__', '{version}').replaceAll('%5Bredacted%5D', '[redacted]');
  } catch {
    return '[not an address]';
  }
}
