// The side panel at a glance, driven through real tasks with the scripted
// model and pictured at 360, 400 and 480 px during a task, after Finished,
// after Stop, after an error and with a pending question: each outcome in its
// own colour, the usage line in view, long thinking folded with a way to open
// it, no half-received tag while a reply streams, the conversation named as
// soon as its task starts, a 401 explained with "Open settings", the header
// whole at 360 px, and a reopened panel at its latest entry with the whole
// task counted. Pictures go to GNOSIS_E2E_SHOTS (agent_panel_<state>_<width>.png).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textOf } from './lib/model_server.js';
import { TARGET_HTML, agentSuite, openPanelAndTarget, storeSettings, runTask, shootPanel } from './lib/agent_fixture.js';

const WIDTHS = [360, 400, 480];
const suite = agentSuite({ routes: { '/target.html': { body: TARGET_HTML } } });

const act = (think, action) => ({ content: `<think>${think}</think>\n<action>${action}</action>` });
const LONG_THOUGHT = 'The pricing page lists three plans side by side. The blue plan is in the middle column and its price is printed under the heading, but the monthly and yearly toggle above the table decides which figure shows, so I first make sure the monthly view is selected before reading the number, and I will hover the price to reveal its tooltip with the taxes included.';

/** Pictures the panel at each width (the log kept at its end) and checks nothing overflows sideways. */
async function shoot(panel, state) {
  for (const width of WIDTHS) {
    await shootPanel(panel, `panel_${state}_${width}`, { width, height: 640 });
  }
  const o = await panel.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth }));
  assert.ok(o.scroll <= o.client, `${state}: the panel overflows sideways`);
}

/** True when el's bottom is inside the history's visible area. */
function inView(panel, selector) {
  return panel.evaluate((sel) => {
    const el = [...document.querySelectorAll(sel)].at(-1);
    const h = document.getElementById('history').getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.bottom <= h.bottom + 1 && r.top >= h.top - 1;
  }, selector);
}

/** The background and left border colour of the latest outcome entry of a kind. */
function colours(panel, outcome) {
  return panel.evaluate((o) => {
    const el = [...document.querySelectorAll(`#log li.outcome[data-outcome="${o}"]`)].at(-1);
    const cs = getComputedStyle(el);
    return `${cs.backgroundColor} / ${cs.borderLeftColor}`;
  }, outcome);
}

test('the side panel reads right at a glance through a task, Finished, Stop, an error and a question, at 360, 400 and 480 px', async () => {
  const { panel, target } = await openPanelAndTarget(suite.env, suite.site.url('/target.html?look'));
  try {
    await storeSettings(panel, { apiUrl: suite.model.url, model: 'venus-test', maxSteps: 20, temperature: 0.5, requestTimeoutMs: 60_000, retryBaseMs: 20, retryMaxMs: 200 }, 'k');
    await panel.click('#new-conversation');
    await panel.setViewportSize({ width: 400, height: 640 });
    // Every text the step's thinking line shows while the reply streams.
    await panel.evaluate(() => {
      window.thinkSeen = [];
      new MutationObserver(() => {
        for (const t of document.querySelectorAll('#log .think .fold-body')) window.thinkSeen.push(t.textContent);
      }).observe(document.getElementById('log'), { subtree: true, childList: true, characterData: true });
    });

    // A task: the first reply streams with its tag cut into pieces; the second waits.
    let release;
    const gate = new Promise((r) => { release = r; });
    let n = 0;
    suite.play = async () => {
      n += 1;
      if (n === 1) return { chunks: ['<', 't', 'hi', 'nk>', LONG_THOUGHT.slice(0, 60), LONG_THOUGHT.slice(60), '</think>\n<action>Hover(point=(500,300))</action>'], chunkDelayMs: 120 };
      if (n === 2) { await gate; return act('The price reads 12 € a month.', "Finished(content='The blue plan costs 12 € a month, taxes included.')"); }
      return { status: 400, body: 'unexpected' };
    };
    await runTask(panel, 'Find the price of the blue plan');
    await panel.waitForFunction(() => /Step 2: waiting for the model/.test(document.getElementById('status').textContent));
    // Named as soon as the task started, not at its end.
    assert.equal(await panel.$eval('#conversation', (s) => s.selectedOptions[0].textContent), 'Find the price of the blue plan');
    const seen = await panel.evaluate(() => window.thinkSeen);
    assert.ok(seen.length > 0, 'the thinking streamed into the step');
    assert.deepEqual(seen.filter((t) => /</.test(t)), [], 'no half-received tag ever shows');
    // Long thinking is folded to three lines, with a way to open it.
    const fold = await panel.evaluate(() => {
      const think = document.querySelector('#log li.step[data-step="1"] .think');
      const body = think.querySelector('.fold-body');
      const line = parseFloat(getComputedStyle(body).lineHeight);
      return { foldable: think.classList.contains('foldable'), button: think.querySelector('button.fold')?.textContent, lines: Math.round(body.getBoundingClientRect().height / line) };
    });
    assert.deepEqual(fold, { foldable: true, button: 'Show all', lines: 3 });
    await shoot(panel, 'running');
    await panel.click('#log li.step[data-step="1"] .think button.fold');
    assert.ok(await panel.$eval('#log li.step[data-step="1"] .think .fold-body', (b) => b.getBoundingClientRect().height > 3 * parseFloat(getComputedStyle(b).lineHeight)), 'Show all opens it');
    assert.equal(await panel.textContent('#log li.step[data-step="1"] .think button.fold'), 'Show less');
    await panel.click('#log li.step[data-step="1"] .think button.fold');

    release();
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]');
    assert.equal(await inView(panel, '#log li.outcome .meter'), true, 'the usage line is in view after Finished');
    assert.match(await panel.textContent('#log li.outcome[data-outcome="finished"] .meter'), /^2 step\(s\), 2 request\(s\)/);
    await shoot(panel, 'finished');

    // Stop while the model thinks: the stopped step says so, the outcome is grey, not green.
    suite.play = () => ({ hang: true });
    await runTask(panel, 'Compare it with the red plan');
    await panel.waitForFunction(() => /waiting for the model/.test(document.getElementById('status').textContent));
    await panel.click('#stop');
    await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]');
    assert.equal(await panel.textContent('#log li.step:last-of-type .result, #log li.step .result.stopped'), 'Stopped here, while waiting for the model.');
    await shoot(panel, 'stopped');

    // A 401: what it means, and a button to the settings.
    suite.play = () => ({ status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) });
    await runTask(panel, 'Read the yearly price');
    const error = await panel.waitForSelector('#log li.outcome[data-outcome="error"]');
    assert.match(await error.textContent(), /HTTP 401 \(the API key is missing, wrong or expired\): Incorrect API key provided/);
    assert.equal(await panel.isVisible('#log li.outcome[data-outcome="error"] button:has-text("Open settings")'), true);
    await shoot(panel, 'error');
    await panel.click('#log li.outcome[data-outcome="error"] button:has-text("Open settings")');
    assert.equal(await panel.isVisible('#settings-view'), true, 'Open settings opens them');
    await panel.click('#show-chat');

    // A question, pending.
    suite.play = () => act('Two plans are called blue.', "CallUser(content='There is a Blue and a Blue Pro plan: which one do you mean?')");
    await runTask(panel, 'And the blue plan for teams?');
    await panel.waitForSelector('#log li.outcome[data-outcome="call_user"]');
    assert.equal(await inView(panel, '#log li.outcome[data-outcome="call_user"]'), true);
    await shoot(panel, 'question');

    // Four outcomes, four looks.
    const looks = { finished: await colours(panel, 'finished'), stopped: await colours(panel, 'stopped'), error: await colours(panel, 'error'), call_user: await colours(panel, 'call_user') };
    assert.equal(new Set(Object.values(looks)).size, 4, `each outcome has its own colour: ${JSON.stringify(looks)}`);

    // The header is whole at 360 px.
    await panel.setViewportSize({ width: 360, height: 640 });
    const header = await panel.evaluate(() => {
      const clipped = (el) => el.scrollWidth > el.clientWidth + 1;
      const top = document.querySelector('header.top');
      return { link: clipped(document.getElementById('bridge-options')), title: clipped(top.querySelector('h1')), inside: [...top.children].every((c) => c.getBoundingClientRect().right <= top.getBoundingClientRect().right + 0.5) };
    });
    assert.deepEqual(header, { link: false, title: false, inside: true });
    const select = await panel.$eval('#conversation', (s) => {
      const c = document.createElement('canvas').getContext('2d');
      const cs = getComputedStyle(s);
      c.font = `${cs.fontSize} ${cs.fontFamily}`;
      return { text: Math.ceil(c.measureText(s.selectedOptions[0].textContent).width), room: s.clientWidth - parseFloat(cs.paddingLeft) - 24 };
    });
    assert.ok(select.text <= select.room || select.room >= 110, `the conversation's name has room at 360 px: ${JSON.stringify(select)}`);
  } finally {
    await target.close();
    await panel.close();
  }
});

test('a reopened panel opens at its latest entry, and the answer after the reopen counts the whole task', async () => {
  const { panel, target } = await openPanelAndTarget(suite.env, suite.site.url('/target.html?reopen'));
  try {
    await storeSettings(panel, { apiUrl: suite.model.url, model: 'venus-test', maxSteps: 20, temperature: 0.5, requestTimeoutMs: 60_000, retryBaseMs: 20, retryMaxMs: 200 }, 'k');
    await panel.click('#new-conversation');
    let n = 0;
    suite.play = () => {
      n += 1;
      return n <= 12 ? act(`Noting ${n}.`, `TakeNote(content='fact ${n}')`) : act('I need a choice.', "CallUser(content='Monthly or yearly?')");
    };
    await runTask(panel, 'Collect the facts, then ask me');
    await panel.waitForSelector('#log li.outcome[data-outcome="call_user"]', { timeout: 30_000 });
    await panel.waitForFunction(() => document.body.dataset.saving !== 'true');
    await panel.close();

    const reopened = await suite.env.openExtensionPage('agent/panel/sidepanel.html');
    await reopened.setViewportSize({ width: 400, height: 640 });
    await reopened.waitForSelector('body[data-ready="true"]');
    await reopened.waitForSelector('#log li.outcome[data-outcome="call_user"]');
    const at = await reopened.evaluate(() => { const h = document.getElementById('history'); return { top: h.scrollTop, max: h.scrollHeight - h.clientHeight }; });
    assert.ok(at.max > 200, 'a long history');
    assert.ok(at.top >= at.max - 2, `opened at the latest entry: ${JSON.stringify(at)}`);
    assert.equal(await inView(reopened, '#log li.outcome[data-outcome="call_user"]'), true);
    let answer;
    suite.play = ({ body }) => { answer = body; return act('Monthly it is.', "Finished(content='monthly')"); };
    await reopened.fill('#task', 'Monthly');
    await reopened.click('#run');
    await reopened.waitForSelector('#log li.outcome[data-outcome="finished"]');
    assert.match(await reopened.textContent('#log li.outcome[data-outcome="finished"] .meter'), /^14 step\(s\), 14 request\(s\)/, 'the whole task, across the reopen');
    assert.doesNotMatch(textOf(answer.messages.at(-1)), /Result of step 13/, 'no empty result before the question');
    await reopened.close();
  } finally {
    await target.close();
  }
});
