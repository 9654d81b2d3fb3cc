// The browser agent end to end: the real extension in Chromium, the Side Panel
// opened as a tab, a scripted model server on 127.0.0.1 that plays a task on a
// local page and checks what the extension sent, fault injection, Stop and the
// step limit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, imagesOf, viewportOf, normalise, jpegSize } from './lib/model_server.js';
import { TARGET_HTML, centerOf, openPanelAndTarget, storeSettings, runTask, outcome, debuggerFree } from './lib/agent_fixture.js';

let env;
let site;
before(async () => {
  site = await serve({ routes: { '/target.html': { body: TARGET_HTML } } });
  env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

const fast = { maxSteps: 20, temperature: 0.5, requestTimeoutMs: 1500, retryBaseMs: 20, retryMaxMs: 300 };
const act = (think, action) => ({ content: `<think>${think}</think>\n<action>${action}</action>` });
const lastText = (body) => textOf(body.messages[body.messages.length - 1]);

test('the scripted model plays a task: click, type, select, scroll, finish, each landing where it pointed', async () => {
  const targetUrl = site.url('/target.html?full');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const problems = [];
  let go;
  const check = (cond, what) => { if (!cond) problems.push(what); };
  const point = async (sel, body) => {
    const c = await centerOf(target, sel);
    const [x, y] = normalise(c.x, c.y, viewportOf(body));
    return `(${x},${y})`;
  };
  const steps = [
    async ({ body }) => {
      const system = body.messages[0];
      check(system.role === 'system', 'first message is the system prompt');
      check(textOf(system).includes('Fill the form and finish'), 'system prompt carries the task');
      check(/Today is \d{4}-\d{2}-\d{2}/.test(textOf(system)), 'system prompt carries the date');
      const vp = viewportOf(body);
      const inner = await target.evaluate(() => ({ w: innerWidth, h: innerHeight }));
      check(Math.abs(vp.width - inner.w) <= 20 && Math.abs(vp.height - inner.h) <= 20, `viewport facts ${JSON.stringify(vp)} match the page ${JSON.stringify(inner)}`);
      check(textOf(system).includes(`${vp.width} x ${vp.height}`), 'system prompt carries the viewport');
      check(imagesOf(body).length === 1, 'first request has one screenshot');
      const dpr = await target.evaluate(() => devicePixelRatio);
      const shot = jpegSize(imagesOf(body)[0].image_url.url);
      check(shot.width === Math.round(vp.width * dpr) && shot.height === Math.round(vp.height * dpr), `screenshot ${JSON.stringify(shot)} covers the reported viewport ${JSON.stringify(vp)}`);
      check(body.stream === true, 'requests ask for streaming');
      check(body.temperature === 0.5, 'temperature from settings');
      go = await centerOf(target, '#go');
      return act('Press the button.', `Click(point=${await point('#go', body)})`);
    },
    async ({ body }) => {
      check(/Result of step 1: clicked button#go "Press me"/.test(lastText(body)), `step 1 result reaches the model: ${lastText(body)}`);
      check(imagesOf(body).length === 2, 'second request has two screenshots');
      return act('Focus the name field.', `Click([${(await point('#name', body)).slice(1, -1)}])`);
    },
    async ({ body }) => {
      check(/clicked input#name/.test(lastText(body)), 'the name field was hit');
      return act('Type the name.', `Type(content='hello \\'agent\\'')`);
    },
    async ({ body }) => {
      check(/typed 13 characters into input#name/.test(lastText(body)), `typing result: ${lastText(body)}`);
      check(imagesOf(body).length === 3, 'fourth request has three screenshots');
      return act('Choose blue.', `SelectOption(point=${await point('#color', body)}, text="Blue")`);
    },
    async ({ body }) => {
      check(/selected "Blue"/.test(lastText(body)), 'the select result reaches the model');
      check(imagesOf(body).length === 3, 'never more than three screenshots');
      return act('Scroll to find the far button.', 'Scroll(point=(500,500), direction=\'down\')');
    },
    async ({ body }) => {
      check(/page scroll moved from \(0,0\)/.test(lastText(body)), `scroll result: ${lastText(body)}`);
      return act('Press the far button.', `Click(point=${await point('#far', body)})`);
    },
    async ({ body }) => {
      check(/clicked button#far/.test(lastText(body)), `far click result: ${lastText(body)}`);
      check(imagesOf(body).length === 3, 'still three screenshots');
      check(body.messages.filter((m) => m.role === 'assistant').length === 6, 'six previous replies in the trajectory');
      return act('All done.', "Finished(content='form filled')");
    },
  ];
  const model = await startModelServer(({ n, body }) => (steps[n - 1] ? steps[n - 1]({ body }) : { status: 400, body: 'too many requests' }));
  try {
    // Settings through the form, as a user would.
    await panel.click('#show-settings');
    await panel.fill('#apiUrl', model.url);
    await panel.fill('#model', 'venus-test');
    await panel.fill('#apiKey', 'sk-test-key');
    await panel.fill('#maxSteps', '20');
    await panel.fill('#temperature', '0.5');
    await panel.click('#save');
    await panel.waitForSelector('#settings-status:has-text("Saved.")');
    await panel.click('#show-chat');
    await runTask(panel, 'Fill the form and finish');
    const end = await outcome(panel);
    assert.deepEqual(problems, []);
    assert.equal(end.outcome, 'finished', end.text);
    assert.match(end.text, /form filled/);
    assert.equal(model.requests.length, 7);
    assert.equal(model.requests[0].headers.authorization, 'Bearer sk-test-key');
    assert.equal(model.requests[0].path, '/v1/chat/completions');
    const events = await target.evaluate(() => window.events);
    const click = events.find((e) => e.startsWith('go:'));
    assert.ok(click, `events: ${events}`);
    const [, trusted, xy] = click.split(':');
    const [cx, cy] = xy.split(',').map(Number);
    assert.equal(trusted, 'true');
    assert.ok(Math.abs(cx - go.x) <= 2 && Math.abs(cy - go.y) <= 2, `click at ${cx},${cy}, button centre ${go.x},${go.y}`);
    assert.ok(events.includes("name:hello 'agent'"), `events: ${events}`);
    assert.ok(events.includes('color:blue'), `events: ${events}`);
    assert.ok(events.includes('far:true'), `events: ${events}`);
    assert.equal(await panel.locator('#log li.step').count(), 7);
    // Usage figures from the streamed replies are kept: the scripted server reports 100+n prompt tokens.
    assert.match(await panel.textContent('#log li.outcome .meter'), /7 step\(s\), 7 request\(s\), 728 prompt \+ 140 completion tokens/);
    assert.equal(await debuggerFree(env, targetUrl), true);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('429 with Retry-After, 503, a non-JSON body and a hung response are retried until success', async () => {
  const targetUrl = site.url('/target.html?faults');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const model = await startModelServer(({ n }) => [
    { status: 429, headers: { 'retry-after': '1' }, body: '{"error":{"message":"slow down"}}' },
    { status: 503, body: 'unavailable' },
    { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>gateway page</html>' },
    { hang: true },
    act('Done.', "Finished(content='made it')"),
  ][n - 1] || { status: 400, body: 'unexpected' });
  try {
    await storeSettings(panel, { ...fast, apiUrl: `${model.origin}/v1/chat/completions`, model: 'venus-test' });
    await runTask(panel, 'Survive the faults');
    const end = await outcome(panel);
    assert.equal(end.outcome, 'finished', end.text);
    assert.match(end.text, /made it/);
    const r = model.requests;
    assert.equal(r.length, 5);
    // Retry-After: 1 s, capped by the 300 ms maximum delay — not the ~20 ms exponential start.
    assert.ok(r[1].at - r[0].at >= 250, `429 retry came after ${r[1].at - r[0].at} ms`);
    // The hung request is abandoned after the 1.5 s timeout and retried.
    assert.ok(r[4].at - r[3].at >= 1400, `hung request retried after ${r[4].at - r[3].at} ms`);
    for (const req of r.slice(1)) assert.deepEqual(req.body.messages, r[0].body.messages, 'every retry resends the same request');
    assert.equal(await debuggerFree(env, targetUrl), true);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('Stop during a hung request ends the run at once and detaches the debugger', async () => {
  const targetUrl = site.url('/target.html?stop');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const model = await startModelServer(() => ({ hang: true }));
  try {
    await storeSettings(panel, { ...fast, requestTimeoutMs: 60000, apiUrl: model.url, model: 'venus-test' });
    await runTask(panel, 'Wait forever');
    await waitFor(() => model.requests.length === 1, { what: 'the request reached the model' });
    assert.notEqual(await debuggerFree(env, targetUrl), true, 'attached while running');
    const t0 = Date.now();
    await panel.click('#stop');
    // "At once": well before the hung request's own 60 s timeout (not a speed limit, which a loaded machine breaks).
    const end = await outcome(panel, 15_000);
    assert.equal(end.outcome, 'stopped');
    assert.ok(Date.now() - t0 < 15_000, `stopped after ${Date.now() - t0} ms`);
    await waitFor(() => model.requests[0].closedAt, { timeoutMs: 10_000, what: 'the hung request was aborted' });
    assert.equal(await waitFor(async () => (await debuggerFree(env, targetUrl)) === true, { timeoutMs: 10_000, what: 'detached' }), true);
    assert.equal(model.requests.length, 1);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('an unusable reply gets one corrective re-ask, repeats get a loop warning, and the step limit stops the run', async () => {
  const targetUrl = site.url('/target.html?limit');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const hover = act('Look around.', 'Hover(point=(10,10))');
  const seen = [];
  const model = await startModelServer(({ n, body }) => {
    seen.push(lastText(body));
    if (n === 1) return { content: 'I think I should click somewhere.' };
    return hover;
  });
  try {
    await storeSettings(panel, { ...fast, maxSteps: 3, apiUrl: model.url, model: 'venus-test' });
    await runTask(panel, 'Loop until the limit');
    const end = await outcome(panel);
    assert.equal(end.outcome, 'step_limit', end.text);
    assert.match(end.text, /step limit of 3/);
    assert.equal(model.requests.length, 4, 'one re-ask plus three steps');
    assert.match(seen[1], /could not be used: no action found/);
    assert.doesNotMatch(seen[2], /identical/);
    assert.match(seen[3], /last two replies were identical/);
    assert.equal(await debuggerFree(env, targetUrl), true);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('the toolbar button opens the side panel', async () => {
  const behavior = await env.evalInWorker(() => chrome.sidePanel.getPanelBehavior());
  assert.equal(behavior.openPanelOnActionClick, true);
});

test('missing settings give one actionable message and touch nothing', async () => {
  const targetUrl = site.url('/target.html?blocked');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  try {
    await storeSettings(panel, { ...fast, apiUrl: '', model: 'venus-test' });
    await runTask(panel, 'Anything');
    const msg = await panel.waitForSelector('#log li.blocked');
    assert.equal(await msg.getAttribute('data-code'), 'missing_api_url');
    assert.match(await msg.textContent(), /Set the API URL in Settings/);
    await storeSettings(panel, { ...fast, apiUrl: 'http://example.com/v1', model: 'm' });
    await runTask(panel, 'Anything');
    await panel.waitForSelector('#log li.blocked[data-code="insecure_api_url"]');
    assert.equal(await debuggerFree(env, targetUrl), true);
  } finally {
    await panel.close();
    await target.close();
  }
});

test('closing the side panel during a run detaches the debugger', async () => {
  const targetUrl = site.url('/target.html?close');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const model = await startModelServer(() => ({ hang: true }));
  try {
    await storeSettings(panel, { ...fast, requestTimeoutMs: 60000, apiUrl: model.url, model: 'venus-test' });
    await runTask(panel, 'Run until the panel closes');
    await waitFor(() => model.requests.length === 1, { what: 'the request reached the model' });
    assert.notEqual(await debuggerFree(env, targetUrl), true, 'attached while running');
    await panel.close();
    assert.equal(await waitFor(async () => (await debuggerFree(env, targetUrl)) === true, { timeoutMs: 10_000, what: 'detached after panel close' }), true);
  } finally {
    await model.close();
    await target.close();
  }
});

test('settings: connection test at temperature 0, remembered key in local storage, session otherwise', async () => {
  const targetUrl = site.url('/target.html?settings');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const model = await startModelServer(() => ({ content: 'OK' }));
  try {
    await panel.click('#show-settings');
    await panel.fill('#apiUrl', model.url);
    await panel.fill('#model', 'venus-test');
    await panel.fill('#apiKey', 'sk-remember');
    await panel.fill('#temperature', '1.5');
    await panel.check('#rememberKey');
    assert.match(await panel.textContent('#remember-warning'), /cannot protect a secret/);
    await panel.click('#save');
    await panel.waitForSelector('#settings-status:has-text("Saved.")');
    const stored = () => panel.evaluate(async () => ({
      local: (await chrome.storage.local.get('agent.apiKey'))['agent.apiKey'],
      session: (await chrome.storage.session.get('agent.apiKey'))['agent.apiKey'],
    }));
    assert.deepEqual(await stored(), { local: 'sk-remember', session: undefined });
    await panel.uncheck('#rememberKey');
    await panel.click('#save');
    await waitFor(async () => (await stored()).session === 'sk-remember', { what: 'key moved to session storage' });
    assert.deepEqual(await stored(), { local: undefined, session: 'sk-remember' });
    await panel.click('#test-connection');
    await panel.waitForSelector('#settings-status:has-text("Connected")');
    assert.equal(model.requests.length, 1);
    assert.equal(model.requests[0].body.temperature, 0);
    assert.equal(model.requests[0].headers.authorization, 'Bearer sk-remember');
    await panel.fill('#maxSteps', '500');
    await panel.click('#save');
    await panel.waitForSelector('#settings-status:has-text("Not saved: fix the field marked above.")');
    assert.match(await panel.textContent('#maxSteps-error'), /Maximum steps must be a number from 1 to 200/);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('a 403 from a local model server explains the origin setting instead of retrying', async () => {
  const targetUrl = site.url('/target.html?forbidden');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const model = await startModelServer(() => ({ status: 403, body: 'Forbidden' }));
  try {
    await storeSettings(panel, { ...fast, apiUrl: model.url, model: 'venus-test' });
    await runTask(panel, 'Anything');
    const end = await outcome(panel);
    assert.equal(end.outcome, 'error');
    assert.match(end.text, /OLLAMA_ORIGINS=chrome-extension:\/\/mbegimjagonemgohdcndepbpfbmlmgdd/);
    assert.equal(model.requests.length, 1);
    assert.equal(await debuggerFree(env, targetUrl), true);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('a content script cannot hand a task to the open panel: only the Page Assistant\'s frame may', async () => {
  const targetUrl = site.url('/target.html?page-task');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const model = await startModelServer(() => act('Done.', "Finished(content='must not run')"));
  try {
    await storeSettings(panel, { ...fast, apiUrl: model.url, model: 'venus-test' });
    const reply = await env.evalInWorker(async (url) => {
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === url);
      const [res] = await chrome.scripting.executeScript({
        target: { tabId: tab.id },
        func: () => chrome.runtime.sendMessage({ type: 'agent.pageTask', task: 'from the page' }),
      });
      return res.result;
    }, targetUrl);
    // The worker's refusal is the answer to the message itself: nothing was started.
    assert.deepEqual(reply, { ok: false, error: 'agent.pageTask is not accepted from content' });
    assert.equal(model.requests.length, 0);
    assert.equal(await panel.locator('#log li').count(), 0);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('agent messages from web pages and content scripts are refused', async () => {
  const targetUrl = site.url('/target.html?no-panel');
  const target = await env.newPage(targetUrl);
  try {
    const reply = await env.evalInWorker(async (url) => {
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === url);
      const [res] = await chrome.scripting.executeScript({
        target: { tabId: tab.id },
        func: async () => ({
          attach: await chrome.runtime.sendMessage({ type: 'agent.attach', sessionId: 'x' }),
          page: await chrome.runtime.sendMessage({ type: 'agent.pageTask', task: 'hello' }),
        }),
      });
      return res.result;
    }, targetUrl);
    assert.deepEqual(reply.attach, { ok: false, error: 'agent.attach is not accepted from content' });
    assert.deepEqual(reply.page, { ok: false, error: 'agent.pageTask is not accepted from content' });
  } finally {
    await target.close();
  }
});
