// The options page with a 54-tool server (the fake Munim with 36 extra
// tools), on a recognised chat site, with the site's grants in the host's
// policy: the whole page is at most 2.5 screens tall at 480 × 900 (and at
// 400 and 360 px), Start and Stop stay in view, the steps come in the
// order a user takes them; the grants table groups, folds, filters, sets a
// group at once and shows what cannot run with its reason; at 360 px no
// heading is clipped, no placeholder cut and every checkbox sits inline with
// its label; the page's texts name no error code and send nobody to "the
// options page"; clashing policy keys are shown with their fix. The page is
// pictured at 360, 400 and 480 px (options_<width>.png, and the 480 px one
// dark; options.png, the README's, is the 480 px one).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fakeMunim, hostConfig, launch, picture, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { CODES, TRANSPORT_CODES } from '../../extension/shared/core/codes.js';

const SCREEN = { width: 480, height: 900 };
const WIDTHS = [360, 400, 480];
const EXTRA_TOOLS = 36; // with the fake Munim's 18: 54 provider tools
const TOOLS = 54;
const ROWS = TOOLS + 15; // and the extension's own 15 Browser tools

let site;
let env;
let dir;
let options;

/** The clash site's origin spelled another way: the host reads both keys as one origin. */
const shout = (origin) => `${origin.toUpperCase()}/`;

before(async () => {
  site = await serve();
  dir = tempDir();
  const config = hostConfig({
    fakemunim: await fakeMunim(), log: path.join(dir, 'calls.jsonl'), env: { FAKEMUNIM_TOOLS: String(EXTRA_TOOLS) },
    policy: {
      origins: {
        [site.origin]: {
          allow: ['computer.screenshot', 'computer.echo', 'computer.extra_00*'],
          ask: ['computer.click', 'computer.type_text', 'computer.extra_01*'],
          deny: ['computer.crash'],
        },
      },
    },
  });
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], config });
  await env.newPage(site.url('/sites/claude.html'));
  options = await env.openOptions();
  await options.setViewportSize(SCREEN);
  await options.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await options.locator('#host-chip').textContent()) === 'Connected', { what: 'connected', timeoutMs: 15_000 });
  await waitFor(async () => (await options.locator('#grants-list li.grant').count()) === ROWS, { what: `${ROWS} rows`, timeoutMs: 15_000 });
  await waitFor(async () => (await options.locator('#preset-state').textContent()) === 'preset: Claude', { what: 'the preset' });
  await waitFor(async () => /^Saved in the host/.test(await options.locator('#grants-state').textContent()), { what: 'the saved grants' });
  await waitFor(async () => /✓/.test(await options.locator('#destination-match').textContent()), { what: 'the live check' });
});

after(async () => {
  await env?.close();
  await site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The page's height and where the run bar's buttons are, for the viewport now. */
function measure(page) {
  return page.evaluate(() => {
    const box = (id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom };
    };
    return { height: document.scrollingElement.scrollHeight, viewport: innerHeight, start: box('start'), stop: box('stop') };
  });
}

const inView = (b, h) => b.top >= 0 && b.bottom <= h;

describe('the options page with a 54-tool server', () => {
  test('at 480 × 900 the whole page is at most 2.5 screens tall (and at 400 and 360 px); Start and Stop stay in view from top to bottom', async (t) => {
    const heights = {};
    for (const width of WIDTHS) {
      await options.setViewportSize({ width, height: SCREEN.height });
      await options.evaluate(() => window.scrollTo(0, 0));
      const top = await measure(options);
      heights[width] = top.height;
      assert.ok(inView(top.start, top.viewport) && inView(top.stop, top.viewport), `Start/Stop at the top, ${width} px: ${JSON.stringify(top)}`);
      await options.evaluate(() => window.scrollTo(0, document.scrollingElement.scrollHeight));
      const bottom = await measure(options);
      assert.ok(inView(bottom.start, bottom.viewport) && inView(bottom.stop, bottom.viewport), `Start/Stop at the bottom, ${width} px`);
      t.diagnostic(`page height at ${width} × ${SCREEN.height} with ${TOOLS} tools: ${top.height} px (${(top.height / SCREEN.height).toFixed(2)} screens)`);
    }
    for (const width of WIDTHS) assert.ok(heights[width] <= 2.5 * SCREEN.height, `${heights[width]} px at ${width} px is more than 2.5 screens`);
    await options.setViewportSize(SCREEN);
  });

  test('the steps come in the order a user takes them: host, this site, what it may run, the prompt, then Start in the bar', async () => {
    const order = await options.evaluate(() => {
      const y = (sel) => document.querySelector(sel).getBoundingClientRect().top + scrollY;
      return {
        sections: ['#host', '#page', '#grants', '#prompt'].map((s) => [s, y(s)]),
        numbers: [...document.querySelectorAll('#view-setup > section')].map((s) => getComputedStyle(s.querySelector('h2'), '::before').content),
        insertBeforeStart: document.getElementById('prompt-insert').compareDocumentPosition(document.getElementById('start')) & Node.DOCUMENT_POSITION_FOLLOWING,
      };
    });
    const ys = order.sections.map(([, y]) => y);
    assert.deepEqual([...ys].sort((a, b) => a - b), ys, JSON.stringify(order.sections));
    assert.deepEqual(order.numbers, Array(4).fill('counter(step)'), 'each step carries its number');
    assert.ok(order.insertBeforeStart, 'Insert into page comes before Start');
  });

  test('the table: grouped with counts, the 50-tool group folded to its summary, one line per untitled tool; what cannot run is disabled with its reason', async () => {
    const groups = await options.locator('.grant-group').evaluateAll((gs) => gs.map((g) => ({
      id: g.dataset.group, rows: g.querySelectorAll('li.grant').length,
      open: g.querySelector('.group-toggle').getAttribute('aria-expanded'), summary: g.querySelector('.group-summary').textContent,
    })));
    assert.deepEqual(groups.map((g) => [g.id, g.rows, g.open]),
      [['read-only', 2, 'true'], ['destructive', 1, 'true'], ['other', 50, 'false'], ['unavailable', 1, 'true'], ['browser', 15, 'false']]);
    assert.equal(groups.find((g) => g.id === 'other').summary, '10 allowed · 11 ask · 29 blocked');
    assert.equal(await options.locator('#grants-summary').textContent(), '12 allowed, 12 ask, 45 blocked');
    assert.equal(await options.getByRole('radiogroup', { name: 'computer.extra_000' }).count(), 0, 'folded rows are out of the way');

    await options.getByRole('button', { name: /^Other/ }).click();
    const rows = await options.locator('.grant-group[data-group="other"] li.grant').evaluateAll((lis) => lis.map((li) => ({ name: li.dataset.name, height: li.getBoundingClientRect().height })));
    const line = Math.min(...rows.map((r) => r.height));
    assert.ok(line <= 40, `a row is ${line} px`);
    for (const r of rows.filter((x) => x.name.startsWith('computer.extra_'))) assert.ok(r.height <= line + 1, `${r.name} takes more than one line: ${r.height} px`);

    const research = options.locator('li.grant[data-name="computer.research"]');
    assert.match(await research.locator('.reason').textContent(), /^Cannot run here: requires MCP task augmentation/);
    assert.deepEqual(await research.locator('input[type=radio]').evaluateAll((inputs) => inputs.map((i) => i.disabled)), [true, true, true]);

    // The description is folded behind the title.
    const echo = options.locator('li.grant[data-name="computer.echo"]');
    assert.equal(await echo.locator('.grant-more').isVisible(), false);
    await echo.getByRole('button', { name: 'Echo' }).click();
    assert.equal(await echo.locator('.grant-more').textContent(), 'Return the arguments unchanged.');
    assert.equal(await echo.locator('.tool-name').textContent(), 'computer.echo');
    await options.getByRole('button', { name: /^Other/ }).click();
  });

  test('the filter narrows by name, title or description; a group\'s bulk choice sets the rows it shows', async () => {
    const filter = options.getByRole('searchbox', { name: 'Filter tools' });
    // The server's rows (the extension's Browser tools match words such as "screenshot" too).
    const shown = () => options.locator('#grants-list li.grant:visible').evaluateAll((lis) => lis.map((li) => li.dataset.name).filter((n) => !n.startsWith('browser.')));
    await filter.fill('screenshot');
    assert.deepEqual(await shown(), ['computer.screenshot'], 'by name');
    await filter.fill('take a');
    assert.deepEqual(await shown(), ['computer.screenshot'], 'by title');
    await filter.fill('MILLISECONDS');
    assert.deepEqual(await shown(), ['computer.slow'], 'by description, case ignored');
    assert.equal(await options.locator('#grants-filter-state').textContent(), `1 of ${ROWS} tools match.`);
    await filter.fill('nothing-like-this');
    assert.deepEqual(await shown(), []);
    assert.match(await options.locator('#grants-filter-state').textContent(), /No tool matches/);

    await filter.fill('extra_02');
    assert.equal((await shown()).length, 10);
    assert.equal(await options.locator('.grant-group[data-group="other"] .group-count').textContent(), '(10 of 50)');
    await options.getByRole('button', { name: 'Allow every other tool' }).click();
    const decision = (name) => options.locator(`li.grant[data-name="${name}"] input:checked`).getAttribute('value');
    assert.equal(await decision('computer.extra_025'), 'allow');
    assert.equal(await decision('computer.extra_035'), 'deny', 'a row the filter hides keeps its choice');
    assert.match(await options.locator('#grants-state').textContent(), /not saved yet: Start saves/);
    await filter.fill('');
    assert.equal((await shown()).length, 4, 'the big group folds again');
    assert.equal(await options.locator('.grant-group[data-group="other"] .group-summary').textContent(), '20 allowed · 11 ask · 19 blocked');
    assert.equal(await options.getByRole('button', { name: 'Allow every other tool' }).getAttribute('aria-pressed'), 'false');
    await options.getByRole('button', { name: 'Block every read-only tool' }).click();
    assert.equal(await options.getByRole('button', { name: 'Block every read-only tool' }).getAttribute('aria-pressed'), 'true');
    // Back to what the host holds.
    await options.reload();
    await options.locator('body[data-ready]').waitFor();
    await waitFor(async () => (await options.locator('#grants-summary').textContent()) === '12 allowed, 12 ask, 45 blocked', { what: 'the saved grants again' });
  });

  test('at 360 px no heading or label is clipped, no placeholder is cut, and every checkbox sits inline with its label', async () => {
    await options.setViewportSize({ width: 360, height: SCREEN.height });
    await options.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
    const problems = await options.evaluate(() => {
      const out = [];
      const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
      for (const el of document.querySelectorAll('h1, h2, h3, summary, label, button, .chip, output')) {
        if (!visible(el)) continue;
        const r = el.getBoundingClientRect();
        if (el.scrollWidth > el.clientWidth + 1 || r.right > document.documentElement.clientWidth + 1) out.push(`clipped: ${el.tagName} "${el.textContent.trim().slice(0, 40)}"`);
      }
      const ctx = document.createElement('canvas').getContext('2d');
      for (const input of document.querySelectorAll('input[placeholder]')) {
        if (!visible(input)) continue;
        const cs = getComputedStyle(input);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        const need = ctx.measureText(input.placeholder).width;
        if (need > room) out.push(`placeholder cut: #${input.id} "${input.placeholder}" needs ${Math.ceil(need)} px, has ${Math.floor(room)}`);
      }
      for (const box of document.querySelectorAll('input[type=checkbox]')) {
        if (!visible(box)) continue;
        const label = box.closest('label') || document.querySelector(`label[for="${box.id}"]`);
        const range = document.createRange();
        const text = [...label.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        range.selectNodeContents(text);
        const t = range.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        const mid = (r) => (r.top + r.bottom) / 2;
        if (Math.abs(mid(t) - mid(b)) > 3 || b.right > t.left) out.push(`checkbox #${box.id} is not inline before "${text.textContent.trim()}"`);
      }
      return out;
    });
    assert.deepEqual(problems, []);
    await options.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = false; });
    await options.setViewportSize(SCREEN);
  });

  test('the texts: no error code, no backtick, nobody sent to "the options page"; "Still replying while" says visible', async () => {
    const text = await options.evaluate(() => {
      for (const d of document.querySelectorAll('details')) d.open = true;
      for (const b of document.querySelectorAll('.disclose[aria-expanded="false"], .group-toggle[aria-expanded="false"]')) b.click();
      const all = [document.body.innerText, ...[...document.querySelectorAll('[placeholder], [title], [aria-label]')]
        .flatMap((el) => [el.getAttribute('placeholder'), el.getAttribute('title'), el.getAttribute('aria-label')])].join('\n');
      return all;
    });
    assert.doesNotMatch(text, /options page/i);
    assert.doesNotMatch(text, /`/);
    for (const code of new Set([...Object.values(CODES), ...Object.values(TRANSPORT_CODES)])) assert.ok(!text.includes(code), `the page says ${code}`);
    assert.match(await options.locator('#streaming-hint').textContent(), /\bvisible\b/);
    await options.reload();
    await options.locator('body[data-ready]').waitFor();
    await waitFor(async () => (await options.locator('#grants-list li.grant').count()) === ROWS, { what: 'rows again' });
  });

  test('pictured at 360, 400 and 480 px, whole, with the run bar at its foot', async () => {
    await waitFor(async () => (await options.locator('#preset-state').textContent()) === 'preset: Claude', { what: 'the preset' });
    await waitFor(async () => /✓/.test(await options.locator('#destination-match').textContent()), { what: 'the live check' });
    for (const width of WIDTHS) {
      await options.setViewportSize({ width, height: SCREEN.height });
      await options.evaluate(() => window.scrollTo(0, 0));
      const height = await options.evaluate(() => document.scrollingElement.scrollHeight);
      await options.setViewportSize({ width, height });
      await env.screenshot(options, `options_${width}`);
      if (width === 480) {
        await picture(options, 'options');
        await options.emulateMedia({ colorScheme: 'dark' });
        await env.screenshot(options, 'options_480_dark');
        await options.emulateMedia({ colorScheme: 'light' });
      }
    }
    await options.setViewportSize(SCREEN);
  });
});

describe('clashing policy keys', () => {
  let clash;
  let clashEnv;
  before(async () => {
    clash = await serve();
    clashEnv = await launch({
      grantOrigins: ['http://127.0.0.1/*'],
      policy: { origins: { [clash.origin]: ['computer.echo'], [shout(clash.origin)]: { deny: ['*'] } } },
    });
  });
  after(async () => {
    await clashEnv?.close();
    await clash?.close();
  });

  test('the page names the keys, says the site gets nothing until fixed, and one save leaves one key', async () => {
    const page = await clashEnv.openOptions(`?origin=${encodeURIComponent(clash.origin)}`);
    await page.setViewportSize(SCREEN);
    await page.locator('body[data-ready]').waitFor();
    await waitFor(async () => page.locator('#grants-clash').isVisible(), { what: 'the clash card', timeoutMs: 15_000 });
    assert.equal(await page.locator('#grants-clash-title').textContent(), 'This site gets nothing until the configuration is fixed');
    assert.deepEqual((await page.locator('#grants-clash-keys .tool-name').allTextContents()).sort(), [clash.origin, shout(clash.origin)].sort());
    const rows = await waitFor(async () => page.locator('#grants-list li.grant').count(), { what: 'the rows' });
    assert.match(await page.locator('#grants-state').textContent(), /^Not in force until saved/);
    assert.equal(await page.locator('#grants-summary').textContent(), `0 allowed, 0 ask, ${rows} blocked`, 'every tool blocked, whatever each key says');
    await clashEnv.screenshot(page.locator('#grants'), 'options_clash');

    await page.getByRole('radiogroup', { name: 'Echo (computer.echo)' }).getByRole('radio', { name: 'Allow', exact: true }).check();
    await page.getByRole('button', { name: 'Save these choices now' }).click();
    await waitFor(async () => page.locator('#grants-clash').isHidden(), { what: 'the clash gone' });
    const origins = clashEnv.config().policy.origins;
    const keys = Object.keys(origins).filter((k) => k.toLowerCase().replace(/\/$/, '') === clash.origin);
    assert.deepEqual(keys, [clash.origin], 'one key left');
    assert.ok([origins[clash.origin].allow ?? origins[clash.origin]].flat().includes('computer.echo'));
    await waitFor(async () => /^Saved in the host/.test(await page.locator('#grants-state').textContent()), { what: 'saved' });
    await page.close();
  });
});
