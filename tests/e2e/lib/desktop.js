// A real desktop for the agent's desktop tests: an Xvfb X server on a free
// display with an xterm running a plain shell, and computer-use-mcp (npm)
// as the host's desktop provider on that display. computer-use-mcp grabs
// the screen and moves the pointer through nut-js (libnut, XTest) and types
// through xdotool, all on $DISPLAY.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './harness.js';

/** computer-use-mcp's entry point in node_modules. */
export const COMPUTER_USE_MCP = path.join(REPO, 'node_modules', 'computer-use-mcp', 'dist', 'main.js');

/** Skips with a reason when the desktop cannot run here (tests/setup.sh installs what it needs). */
export function desktopMissing() {
  for (const bin of ['Xvfb', 'xterm', 'xdotool']) {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    } catch {
      return `${bin} is not installed (tests/setup.sh installs it)`;
    }
  }
  if (!fs.existsSync(COMPUTER_USE_MCP)) return 'computer-use-mcp is not in node_modules (npm ci)';
  return '';
}

function waitForLine(stream, re, what, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error(`${what}: nothing after ${timeoutMs} ms (${buf.slice(-300)})`)), timeoutMs);
    stream.on('data', (c) => {
      buf += c;
      const m = re.exec(buf);
      if (m) {
        clearTimeout(t);
        resolve(m);
      }
    });
  });
}

/**
 * Starts Xvfb (width x height) on a display it picks itself (-displayfd) and
 * an xterm at the top-left corner, cols x rows, its shell in cwd.
 * @returns {Promise<{display:string, width:number, height:number, xterm:{x:number,y:number,width:number,height:number}, close():Promise<void>}>}
 */
export async function startDesktop({ width = 1280, height = 800, cwd, cols = 80, rows = 12 } = {}) {
  const xvfb = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'pipe'] });
  xvfb.stdout.setEncoding('utf8');
  const [, n] = await waitForLine(xvfb.stdout, /^(\d+)\n/m, 'Xvfb display number');
  const display = `:${n}`;
  const env = { ...process.env, DISPLAY: display };
  const xterm = spawn('xterm', ['-fa', 'DejaVu Sans Mono', '-fs', '12', '-geometry', `${cols}x${rows}+0+0`, '-e', 'env', 'PS1=$ ', 'bash', '--norc', '--noprofile'], { cwd, env, stdio: 'ignore' });
  // Waits for the xterm window to be mapped (an event of the X server, not a sleep).
  const id = execFileSync('xdotool', ['search', '--sync', '--onlyvisible', '--class', 'xterm'], { env, encoding: 'utf8', timeout: 15_000 }).trim().split('\n')[0];
  const geo = execFileSync('xdotool', ['getwindowgeometry', '--shell', id], { env, encoding: 'utf8' });
  const g = Object.fromEntries(geo.trim().split('\n').map((l) => l.split('=')));
  const stop = (p) => new Promise((resolve) => {
    if (p.exitCode !== null || p.signalCode) return resolve();
    p.once('exit', resolve);
    p.kill('SIGTERM');
  });
  return {
    display, width, height, env,
    xterm: { x: Number(g.X), y: Number(g.Y), width: Number(g.WIDTH), height: Number(g.HEIGHT) },
    async close() {
      await stop(xterm);
      await stop(xvfb);
    },
  };
}

/** The host provider running computer-use-mcp on display under prefix. */
export function computerUseProvider(display, { prefix = 'desktop', name = 'computer-use-mcp' } = {}) {
  return { name, command: process.execPath, args: [COMPUTER_USE_MCP], prefix, timeout: '30s', env: { DISPLAY: display } };
}

/**
 * The pids of the computer-use-mcp servers running on display (their
 * DISPLAY), so a test kills only its own host's, never another test's.
 */
export function desktopServerPids(display) {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmd.includes(COMPUTER_USE_MCP)) continue;
      const env = fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (env.includes(`DISPLAY=${display}`)) out.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}
