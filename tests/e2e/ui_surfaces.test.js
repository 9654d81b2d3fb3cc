// Every surface at side-panel widths: nothing overflows sideways (scrollWidth
// ≤ clientWidth) at 360, 400 and 480 px, a long conversation title ends in an
// ellipsis, and the side panel's README screenshots come from here: always
// into the shots folder, and into docs/images/ when GNOSIS_UPDATE_IMAGES=1
// (the options page's come from options_layout.test.js).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { laidOut, launch, picture, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';

const WIDTHS = [360, 400, 480];
let env;
let site;
before(async () => {
  site = await serve();
  // No grants for the site: the options page shows what it suggests to a new user.
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

/** Elements wider than the page, and the page's own sideways overflow. */
function overflow(page) {
  return page.evaluate(() => {
    const root = document.scrollingElement;
    const wide = [...document.querySelectorAll('body *')].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right > root.clientWidth + 1 && getComputedStyle(el).position !== 'fixed';
    }).slice(0, 5).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  });
}

async function checkWidths(page, what) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await laidOut(page, width);
    const o = await overflow(page);
    assert.ok(o.scrollWidth <= o.clientWidth, `${what} at ${width} px: scrollWidth ${o.scrollWidth} > clientWidth ${o.clientWidth} (${o.wide.join(', ')})`);
  }
}

test('the options page fits 360, 400 and 480 px, connected, on a recognised site (pictured with 54 tools in options_layout.test.js)', async () => {
  await env.newPage(site.url('/sites/claude.html'));
  const options = await env.openOptions();
  await options.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await options.locator('#host-chip').textContent()) === 'Connected', { what: 'connected', timeoutMs: 15_000 });
  await waitFor(async () => (await options.locator('#grants-list li.grant').count()) > 0, { what: 'grants listed' });
  await waitFor(async () => /^preset: /.test(await options.locator('#preset-state').textContent()), { what: 'the preset filled in' });
  await checkWidths(options, 'options page');
  // Every fold open, every description shown: still nothing sideways.
  await options.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
    for (const b of document.querySelectorAll('[aria-expanded="false"]')) b.click();
  });
  await checkWidths(options, 'options page, unfolded');
  await options.close();
});

test('the side panel fits, with a long conversation title cut by an ellipsis; pictured at first run and with a conversation', async () => {
  const panel = await env.openExtensionPage('agent/panel/sidepanel.html');
  await panel.waitForSelector('body[data-ready="true"]');
  assert.equal(await panel.locator('#setup').isVisible(), true);
  await checkWidths(panel, 'side panel (setup)');
  await panel.setViewportSize({ width: 400, height: 720 });
  await picture(panel, 'sidepanel_setup');

  await panel.evaluate(() => {
    // A model is connected: the chat shows instead of the first-run card.
    document.getElementById('setup').hidden = true;
    document.body.dataset.setup = 'false';
    const select = document.getElementById('conversation');
    select.replaceChildren(new Option('Find the cheapest direct flight from Lisbon to Reykjavík in March and compare the baggage rules of every airline', 'x'));
    const log = document.getElementById('log');
    const li = (cls, text) => Object.assign(document.createElement('li'), { className: cls, textContent: text });
    log.append(li('user', 'Open the pricing page and read me the cheapest plan'),
      li('info', 'Controlling tab: Pricing https://example.com/a/very/long/path/that/keeps/going/and/going/without/any/break/at/all?with=query&and=more'),
      li('outcome', 'Finished: the Starter plan, 9 € a month.'));
    log.lastChild.dataset.outcome = 'finished';
  });
  await checkWidths(panel, 'side panel (conversation)');
  const ellipsis = await panel.locator('#conversation').evaluate((el) => ({ over: el.scrollWidth > el.clientWidth || getComputedStyle(el).textOverflow, fits: el.getBoundingClientRect().right <= document.documentElement.clientWidth }));
  assert.equal(ellipsis.fits, true, 'the title select stays inside the panel');
  assert.notEqual(ellipsis.over, false);
  await panel.click('#show-settings');
  await checkWidths(panel, 'side panel (settings)');
  await panel.click('#show-chat');
  await panel.evaluate(() => { document.getElementById('setup').hidden = true; });
  await panel.setViewportSize({ width: 400, height: 720 });
  await picture(panel, 'sidepanel');
  await panel.close();
});

test('the approval window and the Page Assistant frame fit the narrow widths', async () => {
  const approve = await env.openExtensionPage('bridge/approval/approve.html', '?token=none');
  await approve.locator('#gone').waitFor();
  await approve.evaluate(() => { document.getElementById('approval').hidden = false; document.getElementById('arguments').textContent = JSON.stringify({ text: 'x'.repeat(400) }); });
  await checkWidths(approve, 'approval window');
  await approve.close();
  const frame = await env.openExtensionPage('agent/frame/page_assistant_frame.html');
  await frame.evaluate(() => { document.querySelector('.bar').hidden = false; });
  await checkWidths(frame, 'Page Assistant');
  await frame.close();
});
