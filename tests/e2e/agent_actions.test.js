// Every remaining action of the facts table lands in real Chromium: double
// click, hover, long press, drag, hotkey, Enter, back, home, URL, note, links
// that open a tab and Launch (both followed), Wait, and CallUser answered in
// the panel to continue the same task.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, viewportOf, normalise } from './lib/model_server.js';
import { ACTIONS_HTML, centerOf, openPanelAndTarget, storeSettings, runTask, outcome, debuggerFree } from './lib/agent_fixture.js';

let env;
let site;
before(async () => {
  site = await serve({
    routes: {
      '/actions.html': { body: ACTIONS_HTML },
      '/second.html': { body: '<!doctype html><title>Second</title><p>second page</p>' },
      '/third.html': { body: '<!doctype html><title>Third</title><p>third page</p>' },
    },
  });
  env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

const act = (a) => ({ content: `<think>next</think><action>${a}</action>` });
const lastText = (body) => textOf(body.messages[body.messages.length - 1]);

test('every other action works on a real page, new tabs are followed, CallUser continues the task', async () => {
  const targetUrl = site.url('/actions.html');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const problems = [];
  const expect = (body, re) => { if (!re.test(lastText(body))) problems.push(`${re} not in: ${lastText(body).slice(0, 300)}`); };
  const at = async (sel, body, dx = 0) => {
    const c = await centerOf(target, sel);
    const [x, y] = normalise(c.x + dx, c.y, viewportOf(body));
    return `(${x},${y})`;
  };
  const script = [
    async (b) => act(`DoubleClick(point=${await at('#dbl', b)})`),
    async (b) => { expect(b, /double-clicked button#dbl/); return act(`Hover(point=${await at('#hov', b)})`); },
    async (b) => { expect(b, /mouse over div#hov/); return act(`LongPress(point=${await at('#press', b)}, duration=1)`); },
    async (b) => { expect(b, /pressed div#press "Hold me" for 1000 ms/); return act(`Drag(start=${await at('#drag', b)}, end=${await at('#drag', b, 200)})`); },
    async (b) => { expect(b, /dragged div#drag/); return act(`Click(point=${await at('#q', b)})`); },
    async () => act("Type(content='hello')"),
    async (b) => { expect(b, /typed 5 characters into input#q/); return act("Hotkey(keys=('ctrl','a'))"); },
    async (b) => { expect(b, /pressed ctrl\+a in input#q/); return act('PressEnter()'); },
    async (b) => { expect(b, /pressed Enter in input#q\[name=q\]; the URL changed to .*actions\.html\?q=hello/); return act('PressBack()'); },
    async (b) => { expect(b, /went back; the URL changed to .*actions\.html$/m); return act("Scroll(point=(500,500), direction='down')"); },
    async (b) => { expect(b, /page scroll moved from \(0,0\) to \(0,\d+\)/); return act('PressHome()'); },
    async (b) => {
      expect(b, /scrolled to the top/);
      if ((await target.evaluate(() => window.scrollY)) !== 0) problems.push('PressHome did not reach the top');
      return act('GetUrl()');
    },
    async (b) => { expect(b, /the current URL is http:\/\/127\.0\.0\.1:\d+\/actions\.html/); return act("TakeNote(content='price 3')"); },
    async (b) => { expect(b, /noted: price 3/); return act(`Click(point=${await at('#newtab', b)})`); },
    async (b) => { expect(b, /URL: http:\/\/127\.0\.0\.1:\d+\/second\.html/); return act(`Launch(url='${site.url('/third.html')}')`); },
    async (b) => { expect(b, /opened .*third\.html in a new tab/); expect(b, /URL: .*third\.html\nTitle: Third/); return act('Wait()'); },
    async (b) => { expect(b, /waited 2\.5 s/); return act("CallUser(content='Which colour?')"); },
    async (b) => { expect(b, /You asked the user \(CallUser\): Which colour\?\n\nThe user answered your question: blue please\n\nContinue the task/); return act("Finished(content='blue chosen')"); },
  ];
  let events;
  let selection;
  const model = await startModelServer(async ({ n, body }) => {
    if (n === 8) {
      events = await target.evaluate(() => window.events);
      selection = await target.evaluate(() => [document.activeElement.id, document.activeElement.selectionStart, document.activeElement.selectionEnd]);
    }
    return script[n - 1] ? script[n - 1](body) : { status: 400, body: 'script over' };
  });
  try {
    await storeSettings(panel, { maxSteps: 30, temperature: 0, requestTimeoutMs: 10000, retryBaseMs: 20, retryMaxMs: 200, apiUrl: model.url, model: 'venus-test' });
    await runTask(panel, 'Exercise every action');
    const asked = await outcome(panel, 60_000);
    assert.equal(asked.outcome, 'call_user', asked.text);
    assert.match(asked.text, /Which colour\?/);
    assert.equal(await debuggerFree(env, site.url('/third.html')), true, 'detached while waiting for the user');
    await runTask(panel, 'blue please');
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]', { timeout: 20_000 });
    assert.deepEqual(problems, []);
    assert.equal(model.requests.length, 18);
    assert.ok(events.includes('dbl:true'), `events: ${events}`);
    assert.ok(events.includes('hover'), `events: ${events}`);
    const press = Number(events.find((e) => e.startsWith('press:')).slice(6));
    assert.ok(press >= 950, `held ${press} ms`);
    const [dx, dy] = events.find((e) => e.startsWith('drag:')).slice(5).split(',').map(Number);
    assert.ok(Math.abs(dx - 200) <= 2 && Math.abs(dy) <= 2, `dragged by ${dx},${dy}`);
    assert.ok(events.includes('key:ctrl+a'), `events: ${events}`);
    assert.deepEqual(selection, ['q', 0, 5], 'ctrl+a selected the typed text');
    assert.equal(await debuggerFree(env, site.url('/third.html')), true);
    assert.equal(await debuggerFree(env, site.url('/second.html')), true);
    assert.equal(await debuggerFree(env, targetUrl), true);
  } finally {
    await model.close();
    for (const p of env.context.pages()) if (p.url().startsWith(site.origin) || p === panel) await p.close();
    void target;
  }
});
