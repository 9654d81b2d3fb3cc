// Getting the host onto this system: the release file for each OS and
// architecture at the download location (a mirror's too), what to do with it
// once downloaded, a location the person types checked, and the exact update
// for whichever side of the handshake is older.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LOCATION, SOURCE_UPDATE, checkLocation, folderFor, goPlatform, hostDownloads, installSteps, redactLocation, safeLocation, updatePlan } from '../../../shared/core/host_install.js';
import { HOST_PACKAGES } from '../../../shared/core/release.js';

test('each system the browser reports gets its own release files, the installer first', () => {
  const table = [
    [{ os: 'linux', arch: 'x86-64' }, 'Linux (x86-64)', ['gnosis-0.1.0-linux-amd64.deb', 'gnosis-0.1.0-linux-amd64.rpm', 'gnosis-0.1.0-linux-amd64.zip']],
    [{ os: 'win', arch: 'x86-64' }, 'Windows (x86-64)', ['gnosis-0.1.0-windows-amd64.msi', 'gnosis-0.1.0-windows-amd64.zip']],
    [{ os: 'mac', arch: 'arm64' }, 'macOS (Arm 64-bit)', ['gnosis-0.1.0-darwin-arm64.zip']],
    [{ os: 'cros', arch: 'arm64' }, 'Linux (Arm 64-bit)', ['gnosis-0.1.0-linux-arm64.deb', 'gnosis-0.1.0-linux-arm64.rpm', 'gnosis-0.1.0-linux-arm64.zip']],
  ];
  for (const [info, name, files] of table) {
    const d = hostDownloads(info, { version: '0.1.0' });
    assert.equal(d.platform, name);
    assert.deepEqual(d.packages.map((p) => p.file), files, JSON.stringify(info));
    assert.equal(d.packages[0].url, folderFor(DEFAULT_LOCATION, '0.1.0') + files[0]);
  }
  assert.equal(hostDownloads({ os: 'win', arch: 'x86-32' }, { version: '0.1.0' }), null, 'no release host for 32-bit Windows');
  assert.equal(goPlatform({ os: 'android', arch: 'arm' }), null);
  assert.ok(Object.keys(HOST_PACKAGES).length >= 6);
});

test('a mirror location is used as given, {version} filled in', () => {
  const d = hostDownloads({ os: 'linux', arch: 'x86-64' }, { location: 'http://127.0.0.1:8123/rel/v{version}/', version: '1.2.3' });
  assert.equal(d.packages[0].url, 'http://127.0.0.1:8123/rel/v1.2.3/gnosis-1.2.3-linux-amd64.deb');
  assert.equal(d.checksums, 'http://127.0.0.1:8123/rel/v1.2.3/SHA256SUMS');
});

test('a location must be an https folder (http only on this machine), without credentials', () => {
  const table = [
    ['https://mirror.example.org/gnosis/{version}/', ''],
    ['http://127.0.0.1:8123/', ''],
    ['http://localhost/x/', ''],
    ['http://mirror.example.org/gnosis/', /https:\/\//],
    ['ftp://mirror.example.org/', /https:\/\//],
    ['https://user:pw@mirror.example.org/', /user name and password/],
    ['https://mirror.example.org/gnosis', /slash/],
    ['not a url', /web address/],
  ];
  for (const [loc, want] of table) {
    const got = checkLocation(loc);
    if (want === '') assert.equal(got, '', loc);
    else assert.match(got, want, loc);
  }
});

test('what to do with the downloaded file is true for its kind and this system', () => {
  const win = { os: 'win', arch: 'x86-64' };
  const linux = { os: 'linux', arch: 'x86-64' };
  assert.match(installSteps({ kind: 'msi', file: 'g.msi' }, win).text, /no administrator rights/);
  assert.equal(installSteps({ kind: 'msi', file: 'g.msi' }, win).command, '');
  assert.equal(installSteps({ kind: 'deb', file: 'g.deb' }, linux, '/home/me/Downloads/g.deb').command, 'sudo apt install /home/me/Downloads/g.deb');
  assert.equal(installSteps({ kind: 'deb', file: 'g.deb' }, linux, "/home/me/My Files/it's.deb").command, "sudo apt install '/home/me/My Files/it'\\''s.deb'");
  assert.equal(installSteps({ kind: 'deb', file: 'g.deb' }, linux).command, 'sudo apt install ./g.deb');
  assert.equal(installSteps({ kind: 'rpm', file: 'g.rpm' }, linux, '/tmp/g.rpm').command, 'sudo dnf install /tmp/g.rpm');
  assert.match(installSteps({ kind: 'zip', file: 'g.zip' }, win).text, /gnosis-host\.exe/);
  const unixZip = installSteps({ kind: 'zip', file: 'g.zip' }, { os: 'mac', arch: 'arm64' });
  assert.doesNotMatch(unixZip.text, /\.exe/);
});

test('an older host is updated with the release that matches the extension, or from the checkout', () => {
  const plan = updatePlan('host', { info: { os: 'linux', arch: 'x86-64' }, extensionVersion: '0.2.0', hostVersion: '0.1.0' });
  assert.equal(plan.downloads.packages[0].file, 'gnosis-0.2.0-linux-amd64.deb');
  assert.match(plan.text, /gnosis-host 0\.2\.0, the release that matches this extension/);
  assert.equal(plan.source.command, SOURCE_UPDATE);
  assert.doesNotMatch(JSON.stringify(plan), /\.exe|\.msi/, 'no Windows file on Linux');
});

test('an older extension: the store updates itself, a folder is reloaded, else the matching package', () => {
  const ctx = { info: { os: 'linux', arch: 'x86-64' }, extensionVersion: '0.1.0', hostVersion: '0.3.0' };
  assert.match(updatePlan('extension', { ...ctx, installType: 'normal' }).text, /updates the extension from its store/);
  assert.match(updatePlan('extension', { ...ctx, installType: 'development' }).text, /Reload on Gnosis in chrome:\/\/extensions/);
  const other = updatePlan('extension', { ...ctx, installType: 'sideload' });
  assert.equal(other.link.label, 'gnosis-0.3.0-chrome.zip');
  assert.equal(other.link.url, folderFor(DEFAULT_LOCATION, '0.3.0') + 'gnosis-0.3.0-chrome.zip');
  assert.equal(updatePlan('extension', { ...ctx, hostVersion: 'a1b2c3d', installType: 'sideload' }).link, null, 'a build of a commit has no release files');
  assert.match(updatePlan('extension', { ...ctx, firefox: true, installType: 'normal' }).text, /about:addons/);
  assert.equal(updatePlan('extension', { ...ctx, firefox: true }).link.label, 'gnosis-0.3.0-firefox.xpi');
});

test("a location in a report keeps its shape, not a mirror's token or password", () => {
  assert.equal(redactLocation('https://mirror.example.org/g/{version}/?token=s3cr3t-value&x=1'), 'https://mirror.example.org/g/{version}/?token=[redacted]&x=[redacted]');
  assert.doesNotMatch(redactLocation('https://bob:hunter2@mirror.example.org/'), /hunter2|bob/);
});

test('a stored download location is fetched from only over https (http on this machine), without credentials', () => {
  assert.equal(safeLocation('https://mirror.example.org/gnosis/v{version}/?token=abc'), true);
  assert.equal(safeLocation('http://127.0.0.1:8080/releases/'), true);
  for (const bad of ['http://evil.example/releases/', 'https://user:pw@mirror.example/', 'file:///tmp/', 'javascript:alert(1)', '', null, 'ftp://x/']) {
    assert.equal(safeLocation(bad), false, String(bad));
  }
});
