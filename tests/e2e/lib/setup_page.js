// Helpers for the setup page's end-to-end tests: screenshots of a page at the
// side-panel widths with a check that nothing overflows sideways, the release
// package of the host for this system (a real .deb, for the one-click
// install), and the last gnosis-host that spoke protocol 1, built from this
// repository's history (a real older host, for the version handshake).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, hostBinary, launch, screenshotDir, tempDir, waitFor } from './harness.js';
import { serve } from './server.js';

export const WIDTHS = [360, 400, 480];

/**
 * Saves <shots>/<name>_<width>.png of the whole page at each width, after
 * checking that nothing is wider than the page. Returns the files.
 */
export async function shots(page, name, { widths = WIDTHS } = {}) {
  const files = [];
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const o = await page.evaluate(() => {
      const root = document.scrollingElement;
      const wide = [...document.querySelectorAll('body *')].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > root.clientWidth + 1 && getComputedStyle(el).position !== 'fixed';
      }).slice(0, 5).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
    });
    assert.ok(o.scrollWidth <= o.clientWidth, `${name} at ${width} px: scrollWidth ${o.scrollWidth} > ${o.clientWidth} (${o.wide.join(', ')})`);
    const file = path.join(screenshotDir(), `${name}_${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    files.push(file);
  }
  return files;
}

/**
 * The last commit whose gnosis-host reported no protocol in health (protocol
 * 1): the parent of the commit that introduced `const Protocol = 2`.
 */
export function protocolOneCommit() {
  const intro = execFileSync('git', ['log', '--format=%H', '--reverse', '-S', 'const Protocol = 2', '--', 'host/session/methods.go'], { cwd: REPO, encoding: 'utf8' })
    .split('\n').filter(Boolean)[0];
  if (!intro) throw new Error('no commit introduces session.Protocol = 2: the older-host test needs the repository\'s history (git fetch --unshallow)');
  return execFileSync('git', ['rev-parse', `${intro}^`], { cwd: REPO, encoding: 'utf8' }).trim();
}

/**
 * Builds that commit's cmd/gnosis-host, stamped version, once per commit
 * (kept in the temporary folder for later runs). Returns the binary's path.
 */
export function olderHost(version = '0.0.9') {
  const commit = protocolOneCommit();
  const bin = path.join(os.tmpdir(), `gnosis-host-protocol1-${commit.slice(0, 12)}-${version}`);
  if (fs.existsSync(bin)) return bin;
  const src = tempDir('gnosis-older-host-');
  try {
    execFileSync('sh', ['-c', `git -C '${REPO}' archive ${commit} | tar -x -C '${src}'`]);
    execFileSync('go', ['build', '-trimpath', '-ldflags', `-X main.version=${version}`, '-o', `${bin}.tmp`, './cmd/gnosis-host'], { cwd: src, stdio: 'inherit' });
    fs.renameSync(`${bin}.tmp`, bin);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  return bin;
}

/** The extension's version, which names the release files it fetches. */
export const VERSION = JSON.parse(fs.readFileSync(path.join(REPO, 'extension', 'manifest.json'), 'utf8')).version;

/** The release's host package for Linux x86-64, as the extension names it. */
export const DEB = `gnosis-${VERSION}-linux-amd64.deb`;

/**
 * Builds a real Debian package of bin/gnosis-host named DEB in dir, as the
 * release ships one (its maintainer scripts left out: a test registers the
 * host itself, as the package's would). Returns its path.
 */
export function hostDeb(dir) {
  const root = path.join(dir, 'pkg');
  fs.mkdirSync(path.join(root, 'DEBIAN'), { recursive: true });
  fs.mkdirSync(path.join(root, 'usr', 'lib', 'gnosis'), { recursive: true });
  fs.copyFileSync(hostBinary(), path.join(root, 'usr', 'lib', 'gnosis', 'gnosis-host'));
  fs.writeFileSync(path.join(root, 'DEBIAN', 'control'),
    `Package: gnosis\nVersion: ${VERSION}\nArchitecture: amd64\nMaintainer: Gnosis <gnosis@example.org>\nDescription: Gnosis native messaging host\n`);
  const out = path.join(dir, DEB);
  execFileSync('dpkg-deb', ['-Zgzip', '-z1', '--root-owner-group', '--build', root, out], { stdio: 'ignore' });
  fs.rmSync(root, { recursive: true, force: true });
  return out;
}

/** Routes for lib/server.js serving the package and its SHA256SUMS under /<folder>/v<version>/. */
export function mirrorRoutes(deb, folder = 'rel') {
  const body = fs.readFileSync(deb);
  const sums = `${crypto.createHash('sha256').update(body).digest('hex')}  ${DEB}\n`;
  return {
    [`/${folder}/v${VERSION}/${DEB}`]: { type: 'application/vnd.debian.binary-package', body },
    [`/${folder}/v${VERSION}/SHA256SUMS`]: { type: 'text/plain', body: sums },
  };
}

/**
 * On the setup page with no host: points the download location at a folder
 * of mirror that has no release files and presses Install the host; resolves
 * with the text of the failure the page shows.
 */
export async function failedDownload(page, mirror) {
  const text = (sel) => page.locator(sel).textContent();
  const details = page.locator('#host-location-box');
  if (!(await details.evaluate((d) => d.open))) await page.locator('summary', { hasText: 'Download location' }).click();
  await page.getByLabel('Where the release files are').fill(`${mirror.origin}/missing/v{version}/`);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const checksums = page.locator('#host-install-actions .other-formats a', { hasText: 'SHA256SUMS' });
  await waitFor(async () => (await checksums.getAttribute('href')) === `${mirror.origin}/missing/v${VERSION}/SHA256SUMS`, { what: 'location used' });
  await page.getByRole('button', { name: 'Install the host' }).click();
  await waitFor(async () => /Could not download/.test(await text('#install-state')), { what: 'failed download', timeoutMs: 15_000 });
  return text('#install-state');
}

/**
 * A fresh install's setup page in a browser that finds no host: downloads go to <dir>/downloads,
 * and a local mirror serves routes(dir) for the page's download location. close() ends it all.
 * @param {string} prefix the temporary directory's name prefix
 * @param {(dir: string) => object} [routes] the mirror's routes, made once dir exists
 */
export async function setupWithoutHost(prefix, routes = () => ({})) {
  const dir = tempDir(prefix);
  fs.mkdirSync(path.join(dir, 'downloads'));
  const mirror = await serve({ routes: routes(dir) });
  const env = await launch({ host: false, setupPage: true, downloadDir: path.join(dir, 'downloads') });
  const page = env.setupPage;
  await page.locator('body[data-ready]').waitFor();
  return {
    dir, mirror, env, page,
    async close() {
      await env.close();
      await mirror.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
