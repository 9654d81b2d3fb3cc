// The side panel at 360 px with what a long real task shows: a Finished
// action longer than six lines folds with "Show all" that opens the rest;
// after Pause and Resume the step done again follows the Resumed entry and
// the one cut short says so; "I did it on the page." is said once; the
// Connection choice reads whole; the workspace line says its fact once; Run
// says when it waits for the browser to allow the model server.
// Pictured at 360, 400 and 480 px (agent_layout_<state>_<width>.png).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from './lib/harness.js';
import { TARGET_HTML, agentSuite, openPanelAndTarget, runTask, shootPanel, storeSettings } from './lib/agent_fixture.js';

// With the host (no workspace folder in its configuration).
const suite = agentSuite({ routes: { '/target.html': { body: TARGET_HTML } }, launchOptions: { host: undefined } });
const act = (think, action) => ({ content: `<think>${think}</think>\n<action>${action}</action>` });
const LONG_ANSWER = 'The three plans compared: Basic costs 4 € a month with 10 GB of storage and e-mail support only; Blue costs 12 € a month, taxes included, with 200 GB, priority support and a shared calendar; Blue Pro costs 20 € a month with 2 TB, phone support, single sign-on and an audit log. Billed yearly each is two months cheaper. The Blue plan is the one marked "most popular" on the page, and the yearly toggle above the table was off while I read the figures.';

async function shoot(panel, state) {
  for (const width of [360, 400, 480]) {
    await shootPanel(panel, `layout_${state}_${width}`, { width, height: 720 });
  }
}

test('a long Finished action folds at six lines and opens; Pause and Resume keep the log in order; the acted answer is said once', async () => {
  const { panel } = await openPanelAndTarget(suite.env, suite.site.url('/target.html?layout'));
  try {
    await storeSettings(panel, { apiUrl: suite.model.url, model: 'venus-test', maxSteps: 20, temperature: 0.5, requestTimeoutMs: 60_000, retryBaseMs: 20, retryMaxMs: 200 }, 'k');
    await panel.click('#new-conversation');
    await panel.setViewportSize({ width: 360, height: 720 });

    // Step 1 hovers; step 2 hangs until the user pauses; after Resume, step 2 again, then the long answer.
    let n = 0;
    let release;
    const hung = new Promise((r) => { release = r; });
    suite.play = async () => {
      n += 1;
      if (n === 1) return act('Look around first.', 'Hover(point=(10,10))');
      if (n === 2) { await hung; return { status: 500, body: 'abandoned' }; }
      if (n === 3) return act('Ask before the answer.', "CallUser(content='Should I include the yearly prices?')");
      return act('All read.', `Finished(content='${LONG_ANSWER}')`);
    };
    await runTask(panel, 'Compare the plans');
    await waitFor(() => n === 2, { what: 'the step 2 request' });
    await panel.click('#pause');
    await panel.waitForSelector('#status[data-state="paused"]');
    assert.equal(await panel.textContent('#log li.step[data-step="2"] .result'), 'Paused here, while waiting for the model.');
    await panel.click('#pause'); // Resume
    release();
    await panel.waitForSelector('#log li.outcome[data-outcome="call_user"]');
    const order = await panel.$$eval('#log > li', (lis) => lis.map((li) => (li.classList.contains('step') ? `step ${li.dataset.step}: ${li.querySelector('.result').textContent}` : li.className.split(' ')[0] + (li.classList.contains('paused') ? ' paused' : li.classList.contains('resumed') ? ' resumed' : ''))));
    const paused = order.indexOf('info paused');
    const resumed = order.indexOf('info resumed');
    assert.ok(paused >= 0 && resumed > paused, `paused then resumed: ${JSON.stringify(order)}`);
    assert.equal(order[paused - 1], 'step 2: Paused here, while waiting for the model; done again below.', JSON.stringify(order));
    const redone = order.slice(resumed + 1).find((e) => e.startsWith('step '));
    assert.match(redone, /^step 2: /, `step 2 done again after Resumed: ${JSON.stringify(order)}`);
    assert.doesNotMatch(redone, /Paused here/);
    assert.equal(order.filter((e) => e.startsWith('step 2')).length, 2, 'the cut step and the redone one');
    await shoot(panel, 'resumed');

    await panel.click('#acted');
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]');
    assert.equal(await panel.locator('#log li.user').last().textContent(), 'I did it on the page.');

    // The long Finished action: six lines, then Show all opens the rest; Show less folds it again.
    const action = panel.locator('#log li.step').last().locator('.action');
    const fold = () => action.evaluate((el) => {
      const body = el.querySelector('.fold-body');
      const line = parseFloat(getComputedStyle(body).lineHeight);
      return { lines: Math.round(body.getBoundingClientRect().height / line), whole: body.scrollHeight <= body.clientHeight + 1, button: el.querySelector('button.fold')?.checkVisibility() ? el.querySelector('button.fold').textContent : null };
    });
    assert.deepEqual(await fold(), { lines: 6, whole: false, button: 'Show all' });
    await shoot(panel, 'finished_folded');
    await action.locator('button.fold').click();
    const open = await fold();
    assert.equal(open.whole, true, 'Show all shows the whole action');
    assert.ok(open.lines > 6, `opened: ${open.lines} lines`);
    assert.equal(open.button, 'Show less');
    assert.match(await action.locator('.fold-body').textContent(), /the yearly toggle above the table was off while I read the figures\.'\)$/);
    await shoot(panel, 'finished_open');
    // At 480 px and folded again the button is there only while the fold hides something.
    await action.locator('button.fold').click();
    await panel.setViewportSize({ width: 1400, height: 720 });
    await waitFor(async () => (await fold()).button === null, { what: 'no Show all where the whole action fits' });
    assert.equal((await fold()).whole, true);
  } finally {
    await panel.close();
  }
});

test('Settings at 360 px: the Connection choice reads whole with what it means, and the workspace line says its fact once', async () => {
  const panel = await suite.env.openExtensionPage('agent/panel/sidepanel.html');
  try {
    await panel.waitForSelector('body[data-ready="true"]');
    await storeSettings(panel, { apiUrl: suite.model.url, model: 'venus-test' }, 'k');
    await panel.setViewportSize({ width: 360, height: 720 });
    await panel.click('#show-settings');
    for (const value of ['direct', 'host']) {
      await panel.selectOption('#connection', value);
      const fit = await panel.$eval('#connection', (s) => {
        const c = document.createElement('canvas').getContext('2d');
        const cs = getComputedStyle(s);
        c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16;
        return [...s.options].map((o) => c.measureText(o.textContent).width <= room);
      });
      assert.deepEqual(fit, [true, true], 'every choice fits the select at 360 px');
      assert.match(await panel.textContent('#connection-hint'), value === 'host' ? /^gnosis-host makes the requests/ : /^The extension calls the API URL itself\.$/);
    }
    await panel.selectOption('#connection', 'direct');
    await waitFor(async () => /workspace folder/i.test(await panel.textContent('#workspace-status')), { what: 'the workspace checked', timeoutMs: 20_000 });
    const line = await panel.textContent('#workspace-status');
    assert.match(line, /^No workspace folder is set up\. To let the agent upload and download files, add "workspace"/);
    assert.equal(line.match(/workspace folder/gi).length, 1, `said once: ${line}`);
    await panel.locator('#connection').scrollIntoViewIfNeeded();
    await shoot(panel, 'settings');
  } finally {
    await panel.close();
  }
});

test('Run waits for the browser to allow the model server, and says so', async () => {
  const panel = await suite.env.openExtensionPage('agent/panel/sidepanel.html');
  try {
    await panel.waitForSelector('body[data-ready="true"]');
    // localhost is not among the granted origins (127.0.0.1 is): the browser asks, and in automation never settles.
    const port = new URL(suite.model.url).port;
    await storeSettings(panel, { apiUrl: `http://localhost:${port}/v1`, model: 'venus-test' }, 'k');
    await runTask(panel, 'Read the page');
    await panel.waitForFunction(() => /^Waiting for your answer/.test(document.getElementById('status').textContent));
    assert.equal(await panel.textContent('#status'), 'Waiting for your answer: the browser asks whether Gnosis may reach localhost. Allow it there and the task starts.');
  } finally {
    await panel.close();
  }
});
