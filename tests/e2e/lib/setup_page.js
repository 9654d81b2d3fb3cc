// Helpers for the setup page's end-to-end tests: screenshots of a page at the
// side-panel widths with a check that nothing overflows sideways, and the
// last gnosis-host that spoke protocol 1, built from this repository's
// history (a real older host, for the version handshake).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, screenshotDir, tempDir } from './harness.js';

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
