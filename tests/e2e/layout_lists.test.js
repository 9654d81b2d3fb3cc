// Lists with long names, as real MCP servers have them: the setup page's
// list of a server's tools never lets one name run into the next, and the
// Activity view keeps each outcome badge clear of its tool's name and each
// fact of an entry ("1.5 s", "134 B") whole. Pictured at 360, 400 and 480 px
// (layout_setup_tools[_card]_<width>.png, layout_activity_<width>.png).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { shots } from './lib/setup_page.js';
import { addToIndex, callEntry, taskEntry } from '../../extension/bridge/core/activity_entries.js';

const LONG = [
  'open_application_window_by_exact_title_and_bring_it_to_the_front',
  'read_the_clipboard_contents_as_plain_text_or_html_fragment',
  'list_every_visible_top_level_window_with_its_process',
  'zz',
];
let env;
before(async () => {
  env = await launch({ setupPage: true, grantOrigins: ['http://127.0.0.1/*'], providerEnv: { FAKEMUNIM_NAMES: JSON.stringify(LONG) } });
});
after(async () => {
  await env?.close();
});

/** Rectangles that overlap by more than a pixel, as pairs of texts. */
function overlaps(page, selector) {
  return page.$$eval(selector, (els) => {
    const boxes = els.map((el) => ({ t: el.textContent, r: el.getBoundingClientRect() }));
    const out = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r;
        const b = boxes[j].r;
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) out.push([boxes[i].t, boxes[j].t]);
      }
    }
    return out;
  });
}

test("the setup page's tool list keeps each long name inside its own place", async () => {
  const page = env.setupPage;
  await page.locator('body[data-ready]').waitFor();
  const munim = page.locator('#servers li.server[data-name="munim"]');
  await waitFor(async () => (await munim.getAttribute('data-state')) === 'ready', { what: 'munim ready', timeoutMs: 20_000 });
  await munim.locator('details.tools summary').click();
  for (const width of [360, 400, 480]) {
    await page.setViewportSize({ width, height: 900 });
    const tools = '#servers li.server[data-name="munim"] details.tools li';
    assert.deepEqual(await overlaps(page, tools), [], `at ${width} px no two names overlap`);
    const spill = await page.$$eval(tools, (lis) => lis.filter((li) => li.scrollWidth > li.clientWidth + 1).map((li) => li.textContent));
    assert.deepEqual(spill, [], `at ${width} px every name fits its place`);
    await env.screenshot(munim, `layout_setup_tools_card_${width}`);
  }
  await munim.scrollIntoViewIfNeeded();
  await shots(page, 'layout_setup_tools');
});

test('Activity keeps the outcome badge clear of the tool name and each fact whole', async () => {
  const now = Date.now();
  const origin = 'http://127.0.0.1:8123';
  const call = (name, { approval = null, reply = { ok: true, result: { content: [{ type: 'text', text: 'x'.repeat(100) }] } }, ms = 1500, at }) => callEntry({
    origin, call: { capability: name, arguments: { title: 'Untitled - Notepad' } }, started: at, ended: at + ms, reply, approval, id: `t${at}`,
  });
  const entries = [
    call(`computer.${LONG[0]}`, { approval: { answer: 'allow', remember: 'session' }, at: now - 5000 }),
    call(`computer.${LONG[1]}`, { approval: { answer: 'allow', remember: 'always' }, at: now - 4000, ms: 134 }),
    call('computer.zz', { reply: { ok: false, code: 'FORBIDDEN', message: 'not allowed' }, at: now - 3000, ms: 2 }),
    taskEntry({ conversation: 'c1', seq: 1, task: 'Find the cheapest flight from Lisbon to Oslo in March and ask me before booking', steps: 12, outcome: 'call_user', text: 'Which date?', url: `${origin}/`, at: now - 2000, id: `t${now - 2000}` }),
  ];
  const { index } = addToIndex([], entries, now);
  const page = await env.openOptions('#activity');
  await page.evaluate(async ({ index, entries }) => {
    await chrome.storage.local.set({ activity: index, ...Object.fromEntries(entries.map((e) => [`activity:${e.id}`, e])) });
  }, { index, entries });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.reload();
  await page.locator('body[data-activity-ready]').waitFor();
  assert.deepEqual(errors, []);
  await waitFor(async () => (await page.locator('#activity-list li.entry').count()) === entries.length, { what: 'the entries listed' });
  assert.match(await page.locator('#activity-list li.entry').first().locator('.meta').textContent(), /12 steps$/);
  for (const width of [360, 400, 480]) {
    await page.setViewportSize({ width, height: 900 });
    const clash = await page.$$eval('#activity-list summary', (rows) => rows.flatMap((s) => {
      const pill = s.querySelector('.pill').getBoundingClientRect();
      const name = s.querySelector('code.cap, .task-text').getBoundingClientRect();
      const apart = pill.left >= name.right - 0.5 || pill.top >= name.bottom - 0.5;
      return apart && s.querySelector('.pill').scrollWidth <= s.querySelector('.pill').clientWidth + 1 ? [] : [s.textContent];
    }));
    assert.deepEqual(clash, [], `at ${width} px the badge is clear of the name`);
    const broken = await page.$$eval('#activity-list .meta .fact', (facts) => facts.filter((f) => f.getClientRects().length > 1 || f.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(f).lineHeight)).map((f) => f.textContent));
    assert.deepEqual(broken, [], `at ${width} px no fact breaks across lines`);
    const facts = await page.locator('#activity-list li.entry').nth(3).locator('.meta .fact').allTextContents();
    assert.ok(facts.includes('1.5 s ·') || facts.includes('1.5 s'), `the duration is one fact: ${JSON.stringify(facts)}`);
    const o = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth }));
    assert.ok(o.scroll <= o.client, `Activity at ${width} px overflows sideways`);
    await env.screenshot(page, `layout_activity_${width}`);
  }
  await page.close();
});
