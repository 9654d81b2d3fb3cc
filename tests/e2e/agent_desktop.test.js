// One agent for the tab and the desktop, end to end: real Chromium with the
// extension, the real host, computer-use-mcp (npm) as its desktop provider on
// an Xvfb display with an xterm, and a scripted model. The task starts in the
// tab (the page shows a code), switches to the desktop, clicks into the
// xterm, types a command that writes the code into a file and presses Enter,
// switches back and types the result into the page's form. Every desktop call
// is judged under the extension's origin by what it does (the agent's own
// grants, by kind: looking allowed, pointing and typing asked): the click is
// answered "Allow pointing and clicking for this session" in the approval
// window, the typing "Allow typing and keys for this task" (so Enter runs
// without a window), and each shows in the activity log under the task.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ORIGIN, REPO, annotatedProvider, laidOut, launch, picture, screenshotDir, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { approveIn, unfitPlacements } from './lib/approval.js';
import { startModelServer, textOf, imagesOf, viewportOf, normalise } from './lib/model_server.js';
import { centerOf, openPanelAndTarget, shootPanel, storeSettings, runTask, outcome } from './lib/agent_fixture.js';
import { bar, enableToggle, frameOf, shoot, submitOnPage } from './lib/page_assistant.js';
import sharp from 'sharp';
import { execFileSync } from 'node:child_process';
import { BRIDGE, DESKTOP } from '../../extension/shared/core/messages.js';
import { BUILTIN_PROFILES } from '../../extension/agent/core/desktop_profiles.js';
import { computerUseProvider, desktopMissing, desktopServerPids, startDesktop } from './lib/desktop.js';

const missing = desktopMissing();
const APPROVE_URL = `${EXTENSION_ORIGIN}bridge/approval/approve.html`;
const AGENT_ORIGIN = EXTENSION_ORIGIN.replace(/\/$/, '');
const CODE = 'K-4821';
const PAGE = `<!doctype html><title>Code page</title><style>body{font:20px sans-serif;margin:40px}</style>
<p>Your code: <b id="code">${CODE}</b></p>
<form onsubmit="return false"><label>Result <input id="result" name="result" size="30"></label></form>`;

/** A PNG of one part of the panel at a panel width (the Side Panel's widths: 360, 400, 480). */
async function shootPart(panel, selector, name, width) {
  const before = panel.viewportSize();
  await panel.setViewportSize({ width, height: 900 });
  await panel.locator(selector).scrollIntoViewIfNeeded();
  await panel.locator(selector).screenshot({ path: path.join(screenshotDir(), `agent_${name}.png`) });
  if (before) await panel.setViewportSize(before);
}

/** What the Page Assistant needs: every http and https page, and input to its frame right after a re-layout. */
const PAGE_ORIGINS = ['http://127.0.0.1/*', 'http://*/*', 'https://*/*'];
const NO_DISCARD = '--disable-features=DiscardInputEventsToRecentlyMovedFrames';

/** An MCP server with computer-use-mcp's one tool on a fixed 1920x1080 screen: a desktop where no real one is needed. */
const FIXED_SCREEN = path.join(REPO, 'tests', 'e2e', 'fixtures', 'fixed_screen_mcp.mjs');

/** The whole of a page at a width, as a person scrolls it (the options page's widths: 360, 400, 480). */
async function shootWhole(page, name, width) {
  await page.setViewportSize({ width, height: 900 });
  await laidOut(page, width);
  await picture(page, name);
}

const act = (a, think = 'next') => ({ content: `<think>${think}</think><action>${a}</action>` });

/** The activity log's entries, from an extension page. */
const activityEntries = (page) => page.evaluate(async () => {
  const index = (await chrome.storage.local.get('activity')).activity || [];
  const entries = await chrome.storage.local.get(index.map((i) => `activity:${i.id}`));
  return index.map((i) => entries[`activity:${i.id}`]).filter(Boolean);
});
const lastText = (body) => textOf(body.messages[body.messages.length - 1]);
const systemText = (body) => textOf(body.messages[0]);

describe('the agent on the tab and the desktop', { skip: missing || false }, () => {
  let env;
  let site;
  let desk;
  let work;
  let model;
  let answer = () => ({ status: 400, body: 'no script' });
  let shared; // {panel, target} of the first test, reused by the later ones
  before(async () => {
    model = await startModelServer((req) => answer(req));
    work = tempDir('gnosis-desktop-');
    desk = await startDesktop({ width: 1600, height: 900, cwd: work });
    site = await serve({ routes: { '/code.html': { body: PAGE } } });
    // computer-use-mcp is the host's only provider: the desktop profile is chosen from its tools.
    const config = { providers: [computerUseProvider(desk.display)], log: { level: 'debug' } };
    // Every http(s) page for the Page Assistant (its toggle finds the grant; prompts never settle in automation);
    // input to its frame is not discarded after a re-layout (the bar's own guard is what counts).
    env = await launch({ config, grantOrigins: PAGE_ORIGINS, args: [NO_DISCARD] });
  });
  after(async () => {
    await model?.close();
    await env?.close();
    await site?.close();
    await desk?.close();
  });

  test('a task reads a code in the tab, writes it to a file in the xterm, and types the result back into the page', async () => {
    const { panel, target } = await openPanelAndTarget(env, site.url('/code.html'));
    shared = { panel, target };
    // The desktop is offered once the host lists computer-use-mcp's tool: the panel hears it from the worker, untouched.
    await panel.locator('#surface-desktop:enabled').waitFor({ state: 'attached', timeout: 30_000 });
    // The agent's own grants, in Settings → Desktop, by what a call does: nothing granted yet, the
    // suggestion shown (looking runs, pointing and typing ask), not saved: the first task asks in the panel instead.
    await panel.click('#show-settings');
    await panel.locator('#desktop-grant-list li').first().waitFor({ timeout: 15_000 });
    assert.match(await panel.textContent('#desktop-status'), /Desktop server "desktop", profile: computer-use-mcp \(one computer tool\)\./);
    assert.match(await panel.textContent('#desktop-grants-state'), /Nothing is granted yet/);
    assert.equal(env.config().policy?.origins?.[AGENT_ORIGIN], undefined, 'nothing granted before the person saves');
    for (const [kind, d] of [['look', 'allow'], ['point', 'ask'], ['type', 'ask']]) {
      assert.equal(await panel.isChecked(`input[name="desktop-grant-${kind}"][value="${d}"]`), true, `${kind} suggested ${d}`);
    }
    assert.match(await panel.textContent('#desktop-grant-list li[data-kind="type"]'), /Typing and keys.*through desktop\.computer/);
    for (const w of [360, 400, 480]) await shootPart(panel, '#desktop-settings', `desktop_settings_${w}`, w);
    await panel.click('#show-chat');

    const file = path.join(work, 'code.txt');
    const problems = [];
    const expect = (ok, what) => { if (!ok) problems.push(what); };
    // The xterm's middle as a 0..999 point: the same fraction of the screen and of every scaled screenshot of it.
    const xtermPoint = () => normalise(desk.xterm.x + desk.xterm.width / 2, desk.xterm.y + desk.xterm.height / 2, desk);
    const script = [
      (b) => {
        expect(/SwitchSurface\(surface='desktop'\)/.test(systemText(b)), 'the system prompt describes SwitchSurface');
        expect(/URL: http:\/\/127\.0\.0\.1:\d+\/code\.html/.test(lastText(b)), 'step 1 sees the tab');
        return act(`TakeNote(content='${CODE}')`, `The page shows the code ${CODE}.`);
      },
      () => act("SwitchSurface(surface='desktop')", 'The file is written in the terminal on the desktop.'),
      (b) => {
        // Nothing was granted on the desktop and the person said "Not now": the model reads it, still on the tab.
        expect(/the desktop is not available: nothing is granted to the agent on the desktop yet, and the suggested grants were not accepted: grant them in Settings → Desktop/.test(lastText(b)),
          `the refusal reaches the model: ${lastText(b).slice(0, 400)}`);
        expect(/URL: http:\/\/127\.0\.0\.1:\d+\/code\.html/.test(lastText(b)), 'still on the tab');
        return act("SwitchSurface(surface='desktop')", 'I need the terminal: asking again.');
      },
      (b) => {
        expect(/now on the desktop/.test(lastText(b)), 'the switch is reported');
        expect(/Surface: desktop \(the computer's screen, through the desktop server "desktop"\)/.test(lastText(b)), 'step 4 sees the desktop');
        // computer-use-mcp scales 1600x900 to 1464x823; the agent sends at most 1280 wide.
        expect(/Screenshot: 1280 x 720 pixels \(the server's is 1464 x 823\)/.test(lastText(b)), `sizes in: ${lastText(b).slice(0, 400)}`);
        expect(imagesOf(b).length >= 1, 'a desktop screenshot is attached');
        const [x, y] = xtermPoint();
        return act(`Click(point=(${x},${y}))`);
      },
      (b) => {
        expect(/clicked the desktop at \(\d+,\d+\) of its 1464x823 screenshot/.test(lastText(b)), `click result in: ${lastText(b).slice(0, 300)}`);
        return act(`Type(content='echo ${CODE} > code.txt')`);
      },
      () => act('PressEnter()'),
      (b) => {
        expect(/pressed Enter on the desktop/.test(lastText(b)), 'Enter reported');
        return act("SwitchSurface(surface='tab')");
      },
      async (b) => {
        expect(/URL: http:\/\/127\.0\.0\.1:\d+\/code\.html/.test(lastText(b)), 'back on the tab');
        const c = await centerOf(target, '#result');
        const [x, y] = normalise(c.x, c.y, viewportOf(b));
        return act(`Click(point=(${x},${y}))`);
      },
      () => act(`Type(content='saved ${CODE}')`),
      () => act(`Finished(content='The code ${CODE} is in code.txt and in the form.')`),
    ];
    const first = model.requests.length;
    answer = async ({ n, body }) => (script[n - first - 1] ? script[n - first - 1](body) : { status: 400, body: 'script over' });
    {
      await storeSettings(panel, { maxSteps: 20, temperature: 0, requestTimeoutMs: 20000, retryBaseMs: 20, retryMaxMs: 200, apiUrl: model.url, model: 'venus-test' });
      await runTask(panel, 'Write the code shown on the page into code.txt in the terminal, then type "saved <code>" into the form');
      // The move to the desktop asks in the panel first: the suggested grants by kind, shown, one click to accept.
      const card = panel.locator('#log li.ask-grants:not([data-answer])');
      await card.waitFor({ timeout: 60_000 });
      assert.match(await card.textContent(), /May the agent use the desktop\?This task needs the desktop \(the server "desktop"\), and nothing is granted to the agent there yet\. The suggestion:Looking Allow — screenshots of the whole screenPointing and clicking Ask each time — clicks, pointer moves, drags and scrollingTyping and keys Ask each time — typed text and key presses/);
      assert.match(await panel.textContent('#status'), /^Waiting for your answer in the log: may the agent use the desktop\?/);
      for (const w of [360, 400, 480]) await shootPart(panel, '#log li.ask-grants:not([data-answer])', `desktop_ask_grants_${w}`, w);
      // "Not now" first: nothing is saved, and the model is told (step 3's request, above).
      await panel.click('#desktop-ask-later');
      await panel.locator('#log li.ask-grants[data-answer="not-granted"]').waitFor();
      assert.equal(env.config().policy?.origins?.[AGENT_ORIGIN], undefined, '"Not now" saves nothing');
      // The model asks again (step 3): granted with one click, and the task goes on.
      await card.waitFor({ timeout: 60_000 });
      const nextWindow = () => env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(APPROVE_URL), timeout: 60_000 });
      // The click's window may open soon after the grant is saved: listened for before the click.
      const pointing = nextWindow();
      await panel.click('#desktop-ask-grant');
      await panel.locator('#log li.ask-grants[data-answer="granted"]').waitFor();
      // The host asks about every call of the one tool; the extension answers by the call's kind.
      assert.deepEqual(env.config().policy.origins[AGENT_ORIGIN], { ask: ['desktop.computer'] });
      assert.match(await panel.textContent('#log li.ask-grants[data-answer="granted"] .ask-note'), /^Granted as suggested; the task goes on/);
      /** What a window will say once answered (it closes 1.2 s later): {said}, caught as it is written, once watching. */
      const saidIn = async (win) => {
        const said = new Promise((resolve) => {
          win.on('console', (m) => { if (m.text().startsWith('outcome:')) resolve(m.text().slice('outcome:'.length)); });
          win.once('close', () => resolve('(the window closed without an outcome)'));
        });
        await win.evaluate(() => {
          const el = document.getElementById('outcome');
          new MutationObserver(() => { if (el.textContent) console.log(`outcome:${el.textContent}`); }).observe(el, { childList: true, characterData: true, subtree: true });
        });
        return { said };
      };
      // The screenshots run (looking is allowed); the click asks, answered for this session.
      const win = await pointing;
      await win.locator('#allow-session:enabled').waitFor();
      assert.equal(await win.locator('#origin').textContent(), 'The browser agent (side panel)');
      assert.equal(await win.locator('#cap-name').textContent(), 'desktop.computer');
      assert.equal(await win.locator('#allow-always').isHidden(), true, 'the agent\'s grants are set in its Settings, not "always" here');
      // In its own words: it acts on the desktop, what kind of act, which task and which tab led to it.
      assert.match(await win.locator('#desktop-what').textContent(), /^This acts on your computer’s desktop, outside the browser: pointing and clicking/);
      assert.equal(await win.locator('#desktop-task').textContent(), '“Write the code shown on the page into code.txt in the terminal, then type "saved <code>" into the form”');
      assert.match(await win.locator('#desktop-page').textContent(), /^Code page — http:\/\/127\.0\.0\.1:\d+\/code\.html$/);
      assert.equal(await win.locator('#allow-session').textContent(), 'Allow pointing and clicking for this session');
      await env.screenshot(win, 'agent_desktop_approval');
      const { said } = await saidIn(win);
      await approveIn(win, '#allow-session');
      assert.equal(await said, 'Allowed for this session — running. Pointing and clicking on the desktop runs without asking until the browser restarts, or until you forget it in Settings → Desktop.');
      // The typing asks: typing is remembered for this task only.
      const typing = await nextWindow();
      await typing.locator('#allow-session:enabled').waitFor();
      assert.equal(await typing.locator('#allow-session').textContent(), 'Allow typing and keys for this task');
      assert.match(await typing.locator('#desktop-what').textContent(), /typing and keys, .*Typed into a terminal, text can run commands\./);
      for (const width of [540, 400]) {
        await typing.setViewportSize({ width, height: 700 });
        assert.deepEqual(await unfitPlacements(typing), [], `the agent's window at ${width} x 700 fits with its buttons above or below`);
      }
      await typing.setViewportSize({ width: 540, height: 700 });
      await env.screenshot(typing, 'agent_desktop_approval_typing');
      const { said: typed } = await saidIn(typing);
      await approveIn(typing, '#allow-session');
      assert.equal(await typed, 'Allowed for this task — running. Typing and keys on the desktop runs without asking until this task ends or leaves the desktop.');
      const end = await outcome(panel, 120_000);
      assert.equal(end.outcome, 'finished', end.text);
      assert.deepEqual(problems, []);
      assert.equal(fs.readFileSync(file, 'utf8').trim(), CODE);
      assert.equal(await target.inputValue('#result'), `saved ${CODE}`);
      // The panel says which surface each step acted on.
      const surfaces = await panel.$$eval('#log li[data-step]', (els) => els.map((e) => `${e.dataset.step}:${e.dataset.surface}`));
      assert.deepEqual(surfaces, ['1:tab', '2:tab', '3:tab', '4:desktop', '5:desktop', '6:desktop', '7:desktop', '8:tab', '9:tab', '10:tab']);
      // The task box with its surface choice, and the steps tagged Tab / Desktop, at the panel's widths.
      for (const w of [360, 400, 480]) {
        await panel.setViewportSize({ width: w, height: 560 });
        await panel.locator('#log li[data-step="4"]').scrollIntoViewIfNeeded();
        await shootPanel(panel, `desktop_choice_${w}`, { width: w, height: 560 });
      }
      // Every desktop call passed the grants and is in the activity log under the task.
      const log = await waitFor(async () => {
        const got = await panel.evaluate(async () => {
          const index = (await chrome.storage.local.get('activity')).activity || [];
          const entries = await chrome.storage.local.get(index.map((i) => `activity:${i.id}`));
          return index.map((i) => entries[`activity:${i.id}`]);
        });
        return got.some((e) => e.kind === 'task') ? got : null;
      }, { what: 'activity entries', timeoutMs: 10_000 });
      const task = log.find((e) => e.kind === 'task');
      const calls = log.filter((e) => e.kind === 'call' && e.origin === AGENT_ORIGIN);
      assert.ok(calls.length >= 6, `desktop calls logged: ${calls.length}`);
      for (const c of calls) {
        assert.equal(c.capability, 'desktop.computer');
        assert.equal(c.code, 'OK', JSON.stringify(c));
        assert.equal(c.task, task.key);
      }
      assert.deepEqual(calls.map((c) => JSON.parse(c.args).action), ['get_screenshot', 'left_click', 'get_screenshot', 'type', 'get_screenshot', 'key', 'get_screenshot']);
      // Looking granted, the click and the typing asked and allowed, Enter allowed by the typing's choice for the task.
      assert.deepEqual(calls.map((c) => c.decision), ['granted', 'allowed', 'granted', 'allowed', 'granted', 'remembered', 'granted']);
      assert.deepEqual(calls.map((c) => c.desktopKind), ['look', 'point', 'look', 'type', 'look', 'type', 'look']);
      // The Activity view shows them under the task's entry.
      const options = await env.openOptions('#activity');
      await options.locator('body[data-activity-ready="true"]').waitFor();
      const entry = options.locator('#activity-list > li.entry[data-outcome="task"]');
      await entry.locator('summary').first().click();
      assert.equal(await entry.locator('h3', { hasText: 'Its desktop calls' }).textContent(), `Its desktop calls (${calls.length})`);
      assert.equal(await entry.locator('.task-calls > li.entry').count(), calls.length);
      assert.equal(await options.locator('#activity-list > li.entry').count(), 1, 'no desktop call outside its task');
      // Closed, each call says what it did: the command typed, the key pressed.
      const asked = await entry.locator('.task-calls > li.entry summary .args').allTextContents();
      assert.equal(asked.length, calls.length);
      assert.ok(asked.includes(`action: type, text: ${JSON.stringify(`echo ${CODE} > code.txt`)}`) && asked.includes('action: key, text: enter'), JSON.stringify(asked));
      await entry.locator('.task-calls > li.entry summary').nth(1).click();
      assert.equal(await entry.locator('.task-calls > li.entry').nth(1).locator('p.decision').textContent(),
        'Allowed by you for this session: pointing and clicking on the desktop runs without asking until the browser restarts or you forget it in Settings → Desktop');
      await env.screenshot(entry, 'activity_agent_desktop_calls');
      await options.close();
    }
  });

  /** Answers the next model requests with these functions in turn; null: the request hangs. Returns the bodies seen. */
  function script(steps) {
    const seen = [];
    answer = ({ body }) => {
      const fn = steps[seen.length];
      seen.push(body);
      if (fn === null) return { hang: true };
      return fn ? fn(body) : { status: 400, body: 'script over' };
    };
    return seen;
  }

  /** xdotool on the test's display (the person's own hands on the desktop). */
  const xdo = (args) => execFileSync('xdotool', args, { env: desk.env });

  /** A task on the desktop that finishes at its first step: its screenshot is answered once the server is free again. */
  async function finishOnDesktop(panel) {
    script([() => act("Finished(content='the desktop is free')")]);
    await panel.locator('#surface-desktop:enabled').waitFor({ state: 'attached', timeout: 30_000 });
    await panel.click('#new-conversation');
    await panel.check('input[name="surface"][value="desktop"]');
    await runTask(panel, 'Look at the desktop');
    const end = await outcome(panel, 60_000);
    assert.equal(end.outcome, 'finished', end.text);
  }

  test('a task started from the Page Assistant bar with Desktop chosen starts on the desktop: its first step sees the desktop and acts on it', async () => {
    const { panel, target } = shared;
    await panel.click('#new-conversation');
    await enableToggle(panel);
    await target.bringToFront();
    const cdp = await target.context().newCDPSession(target);
    const offered = await waitFor(async () => { const b = await bar(target, cdp); return b?.visible && !b.where.desktop.disabled && b; }, { what: 'Desktop offered on the bar', timeoutMs: 20_000 });
    assert.equal(offered.where.desktop.label, 'Desktop');
    await frameOf(target).selectOption('.where', 'desktop');
    assert.equal((await bar(target, cdp)).input.placeholder, 'Ask the agent to do something on the desktop…');
    const problems = [];
    const expect = (ok, what) => { if (!ok) problems.push(what); };
    let firstShot = null;
    const at = { x: desk.xterm.x + Math.round(desk.xterm.width / 2), y: desk.xterm.y + Math.round(desk.xterm.height / 2) };
    const [x, y] = normalise(at.x, at.y, desk);
    const seen = script([
      (b) => {
        // The first step is the desktop's: its facts, its screenshot (the desktop's size, not the tab's), no page URL.
        expect(/Surface: desktop \(the computer's screen, through the desktop server "desktop"\)/.test(lastText(b)), `step 1 sees the desktop: ${lastText(b).slice(0, 300)}`);
        expect(!/URL: http/.test(lastText(b)), 'step 1 sees no page');
        firstShot = imagesOf(b).at(-1)?.image_url.url;
        return act(`Hover(point=(${x},${y}))`, 'The terminal is on the desktop.');
      },
      (b) => {
        expect(/moved the mouse to the desktop at \(\d+,\d+\) of its 1464x823 screenshot/.test(lastText(b)), `the first action was on the desktop: ${lastText(b).slice(0, 300)}`);
        return act("Finished(content='the pointer is on the terminal')");
      },
    ]);
    await submitOnPage(target, cdp, 'Put the pointer on the terminal');
    const done = await waitFor(async () => { const b = await bar(target, cdp); return b?.card.shown && b; }, { what: 'the result card on the bar', timeoutMs: 60_000 });
    assert.equal(done.card.outcome, 'finished', done.card.text);
    assert.deepEqual(problems, []);
    assert.equal(seen.length, 2);
    assert.match(systemText(seen[0]), /Put the pointer on the terminal/);
    const shot = await sharp(Buffer.from(firstShot.split(',')[1], 'base64')).metadata();
    assert.deepEqual([shot.width, shot.height], [1280, 720], 'the first screenshot is the desktop\'s, scaled to 1280 wide');
    // The action moved the desktop's own pointer (X's, not the page's), onto the xterm's middle (within the 0..999 grid's rounding).
    const pointer = Object.fromEntries(execFileSync('xdotool', ['getmouselocation', '--shell'], { env: desk.env, encoding: 'utf8' }).trim().split('\n').map((l) => l.split('=')));
    assert.ok(Math.abs(Number(pointer.X) - at.x) <= 4 && Math.abs(Number(pointer.Y) - at.y) <= 4, `the pointer at ${pointer.X},${pointer.Y}, the xterm's middle at ${at.x},${at.y}`);
    const surfaces = await panel.$$eval('#log li[data-step]', (els) => els.map((e) => `${e.dataset.step}:${e.dataset.surface}`));
    assert.deepEqual(surfaces, ['1:desktop', '2:desktop']);
    // The log says where the task works: the desktop, not a tab named after it.
    const infos = await panel.$$eval('#log li.info', (els) => els.map((e) => e.textContent));
    assert.ok(infos.includes('Working on the desktop, through the desktop server "desktop".'), JSON.stringify(infos));
    assert.ok(!infos.some((t) => /Controlling tab/.test(t)), JSON.stringify(infos));
    await shoot(target, 'desktop_task_done');
    // The panel in front again, as a side panel always is (a background tab's timers are throttled).
    await panel.bringToFront();
  });

  test('Stop during a long Type: at most one piece reaches the terminal after it, whatever the server does with the cancel', async () => {
    const { panel } = shared;
    // The terminal keeps what reaches it, as it comes: cat, non-canonical and without echo, into typed.txt.
    const typedFile = path.join(work, 'typed.txt');
    const [mx, my] = [desk.xterm.x + Math.round(desk.xterm.width / 2), desk.xterm.y + Math.round(desk.xterm.height / 2)];
    xdo(['mousemove', String(mx), String(my), 'key', 'ctrl+u', 'type', 'stty -icanon -echo; cat > typed.txt']);
    xdo(['key', 'Return']);
    await waitFor(() => fs.existsSync(typedFile), { what: 'cat writing typed.txt' });
    const typedNow = () => fs.readFileSync(typedFile, 'utf8').length;
    // A long Type: computer-use-mcp types each piece with one xdotool call, 10 ms a character, and ignores a cancel.
    const TOTAL = 240;
    const PIECE = BUILTIN_PROFILES[0].typeChunk;
    const seen = script([() => act(`Type(content='${'x'.repeat(TOTAL)}')`)]);
    await panel.check('input[name="surface"][value="desktop"]');
    assert.equal(await panel.getAttribute('#task', 'placeholder'), 'What should the agent do on the desktop?');
    await panel.evaluate(() => {
      window.stopTimes = {};
      document.getElementById('stop').addEventListener('click', () => { window.stopTimes.clicked = performance.now(); window.stopTimes.at = Date.now(); }, { capture: true });
      new MutationObserver(() => {
        if (!window.stopTimes.shown && document.querySelector('#log li.outcome')) window.stopTimes.shown = performance.now();
      }).observe(document.getElementById('log'), { childList: true });
    });
    await panel.click('#new-conversation');
    const asked = env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(APPROVE_URL), timeout: 60_000 });
    await runTask(panel, 'Type a long line in the terminal');
    // A new task: the last one's typing choice ended with it, so the typing asks; allowed for this task, its pieces run.
    const win = await asked;
    await approveIn(win, '#allow-session');
    // Stopped in the middle of the typing: after the first piece landed.
    await waitFor(() => typedNow() > PIECE, { what: 'the first piece typed', timeoutMs: 60_000 });
    assert.match(await panel.textContent('#status'), /Step 1: acting…/);
    const before = typedNow();
    await panel.click('#stop');
    const li = await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]', { timeout: 5000 });
    assert.match(await li.textContent(), /^Stopped at step 1\./);
    assert.equal(await panel.textContent('#log li.step[data-step="1"] .result'), 'Stopped here, while acting.');
    const t = await panel.evaluate(() => window.stopTimes);
    const latency = t.shown - t.clicked;
    assert.ok(latency < 1000, `Stopped shown ${latency} ms after the click`);
    assert.equal(seen.length, 1);
    // The next desktop task's screenshot is answered only once the server's typing is over (it types with a blocking call).
    await finishOnDesktop(panel);
    const typed = fs.readFileSync(typedFile, 'utf8');
    const calls = (await waitFor(async () => {
      const got = (await activityEntries(panel)).filter((e) => e.kind === 'call' && JSON.parse(e.args).action === 'type' && /^x+$/.test(JSON.parse(e.args).text));
      return got.some((e) => e.code === 'CANCELLED') && got;
    }, { what: 'the cancelled piece in the activity log' })).sort((a, b) => a.at - b.at);
    const pieces = calls.map((e) => JSON.parse(e.args).text.length);
    // Every piece is short; the one in flight when the Stop reached the worker was cancelled through the host, and none
    // started after it. (A piece that ended in the milliseconds between the click and the worker's hearing of it lets
    // the next one start: at most one piece starts after the click.)
    assert.ok(pieces.every((n) => n <= PIECE), JSON.stringify(pieces));
    assert.deepEqual(calls.map((e) => e.code), [...Array(calls.length - 1).fill('OK'), 'CANCELLED']);
    assert.ok(calls.filter((e) => e.at > t.at).length <= 1, 'at most one piece started after the click');
    // What reached the terminal is exactly the pieces sent (the cancelled one ran on in the server): far from all of it.
    assert.equal(typed, 'x'.repeat(pieces.reduce((a, b) => a + b, 0)));
    assert.ok(typed.length < TOTAL, `${typed.length} of ${TOTAL} typed`);
    const after = typed.length - before;
    console.log(`# Stop during a desktop Type → "Stopped" ${latency.toFixed(1)} ms; ${after} characters reached the terminal after the Stop (a piece is ${PIECE}), ${typed.length} of ${TOTAL} in all`);
    assert.ok(after <= 2 * PIECE, `${after} characters after the Stop`);
    // The terminal back to a shell prompt for the next tests.
    xdo(['key', 'ctrl+c', 'type', 'stty sane; clear']);
    xdo(['key', 'Return']);
  });

  test('Pause on the desktop hands it to the person; Resume goes on with a fresh desktop screenshot', async () => {
    const { panel } = shared;
    const seen = script([
      () => act('Hover(point=(500,500))'),
      null, // step 2 hangs: the person pauses meanwhile
    ]);
    await panel.click('#new-conversation');
    await panel.check('input[name="surface"][value="desktop"]');
    await runTask(panel, 'Wait for the person');
    await waitFor(() => seen.length === 2, { what: 'the step 2 request', timeoutMs: 30_000 });
    assert.match(lastText(seen[1]), /Surface: desktop/);
    await panel.click('#pause');
    await panel.waitForSelector('#status[data-state="paused"]');
    // The person acts on the desktop by hand: a line in the xterm.
    xdo(['mousemove', '100', '60', 'key', 'ctrl+u', 'type', 'echo by-hand > hand.txt']);
    xdo(['key', 'Return']);
    await waitFor(() => fs.existsSync(path.join(work, 'hand.txt')), { what: 'the person\'s command ran' });
    let resumed;
    script([(b) => { resumed = b; return act("Finished(content='the person wrote hand.txt')"); }]);
    await panel.click('#pause');
    const end = await panel.waitForSelector('#log li.outcome[data-outcome="finished"]', { timeout: 30_000 });
    assert.match(await end.textContent(), /hand\.txt/);
    assert.match(lastText(resumed), /The user paused the task during step 2, acted on the page by hand and resumed it/);
    assert.match(lastText(resumed), /Step 2 of at most 20[\s\S]*Surface: desktop/, 'the step is asked again, on the desktop');
    const shots = (b) => imagesOf(b).at(-1)?.image_url.url;
    assert.notEqual(shots(resumed), shots(seen[1]), 'a fresh desktop screenshot, taken after the person acted');
    const surfaces = await panel.$$eval('#log li[data-step]', (els) => els.map((e) => `${e.dataset.step}:${e.dataset.surface}`));
    // Step 2 cut by Pause (its model never answered, so it acted nowhere), then step 2 done again on the desktop.
    assert.deepEqual(surfaces, ['1:desktop', '2:undefined', '2:desktop']);
  });

  test('Settings → Desktop checks an edited profile against the tool\'s schema before saving it', async () => {
    const { panel } = shared;
    await panel.click('#show-settings');
    await panel.locator('#desktop-grant-list li').first().waitFor();
    await panel.click('#desktop-profile summary');
    const json = JSON.parse(await panel.inputValue('#desktop-profile-json'));
    // A tool the host does not list, and an action computer-use-mcp's schema does not know.
    json.actions.screenshot = [{ tool: 'grab', args: {} }];
    json.actions.click = [{ tool: 'computer', args: { action: 'click', coordinate: '$point' } }];
    await panel.fill('#desktop-profile-json', JSON.stringify(json));
    await panel.click('#desktop-profile-save');
    await panel.locator('#desktop-profile-problems li').first().waitFor();
    const problems = await panel.$$eval('#desktop-profile-problems li', (els) => els.map((e) => e.textContent));
    assert.deepEqual(problems.slice(0, 2), ['desktop.grab is not listed by the host', 'click → desktop.computer $.action: "click" is not one of "key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "scroll", "get_screenshot", "get_cursor_position"']);
    await shootPart(panel, '#desktop-settings', 'desktop_profile_problems_400', 400);
    assert.equal(await panel.evaluate(async () => (await chrome.storage.local.get('desktopProfile')).desktopProfile), undefined, 'nothing saved');
    // A profile that fits is saved, and then used.
    json.actions.screenshot = [{ tool: 'computer', args: { action: 'get_screenshot' } }];
    json.actions.click = [{ tool: 'computer', args: { action: 'double_click', coordinate: '$point' } }];
    await panel.fill('#desktop-profile-json', JSON.stringify(json));
    await panel.click('#desktop-profile-save');
    await waitFor(async () => /your own/.test(await panel.textContent('#desktop-status')), { what: 'the own profile in use' });
    await panel.click('#desktop-profile-reset');
    await waitFor(async () => /computer-use-mcp \(one computer tool\)/.test(await panel.textContent('#desktop-status')), { what: 'the built-in again' });
    await panel.click('#show-chat');
  });

  test('a refused desktop call is the model\'s to read: a task in the tab that moves to a desktop the agent may not use goes on in the tab', async () => {
    const { panel } = shared;
    // The person blocks every kind of desktop call (Settings → Desktop saves it so).
    const blocked = await panel.evaluate((type) => chrome.runtime.sendMessage({ type, kinds: { look: 'deny', point: 'deny', type: 'deny' } }), DESKTOP.SET_GRANTS);
    assert.equal(blocked.ok, true, JSON.stringify(blocked));
    const seen = script([
      () => act("SwitchSurface(surface='desktop')"),
      (b) => act(`Finished(content='${/The desktop screenshot was refused/.test(lastText(b)) ? 'told' : 'not told'}')`),
    ]);
    await panel.click('#new-conversation');
    await panel.check('input[name="surface"][value="tab"]');
    await runTask(panel, 'Look at the desktop, or else finish');
    const end = await outcome(panel, 60_000);
    assert.equal(end.outcome, 'finished', end.text);
    assert.equal(seen.length, 2);
    const told = lastText(seen[1]);
    assert.match(told, /The desktop screenshot was refused \(the agent may not use desktop\.computer: allow it in Settings → Desktop\)\. You are on the browser tab again: go on here, or finish\./);
    assert.doesNotMatch(told, /chrome-extension:|options page/);
    assert.match(told, /URL: http:\/\/127\.0\.0\.1:\d+\/code\.html/, 'the observation is the tab\'s');
    assert.match(end.text, /told/);
    const surfaces = await panel.$$eval('#log li[data-step]', (els) => els.map((e) => `${e.dataset.step}:${e.dataset.surface}`));
    assert.deepEqual(surfaces, ['1:tab', '2:tab']);
    const refused = (await activityEntries(panel)).filter((e) => e.kind === 'call' && e.code === 'FORBIDDEN');
    assert.equal(refused.at(-1)?.reason, 'not-granted', JSON.stringify(refused.at(-1)));
    // Allowed again for the tests that follow.
    const allowed = await panel.evaluate((type) => chrome.runtime.sendMessage({ type, kinds: { look: 'allow', point: 'allow', type: 'allow' }, typingConfirmed: true }), DESKTOP.SET_GRANTS);
    assert.equal(allowed.ok, true, JSON.stringify(allowed));
  });

  test('a desktop server killed in the middle of an action: the call waits for the host to start it again, is made once more, and the task goes on', async () => {
    const { panel } = shared;
    // The terminal keeps what reaches it (as in the Stop test); the server is killed while a piece of a Type runs.
    const file = path.join(work, 'restart.txt');
    xdo(['mousemove', String(desk.xterm.x + 40), String(desk.xterm.y + 40), 'key', 'ctrl+u', 'type', 'stty -icanon -echo; cat > restart.txt']);
    xdo(['key', 'Return']);
    await waitFor(() => fs.existsSync(file), { what: 'cat writing restart.txt' });
    const PIECE = BUILTIN_PROFILES[0].typeChunk;
    const seen = script([
      () => act(`Type(content='${'r'.repeat(4 * PIECE)}')`),
      () => act("Finished(content='typed after the restart')"),
    ]);
    await panel.click('#new-conversation');
    await panel.check('input[name="surface"][value="desktop"]');
    await runTask(panel, 'Type a line in the terminal');
    await waitFor(() => fs.readFileSync(file, 'utf8').length > PIECE, { what: 'the first piece typed', timeoutMs: 60_000 });
    // SIGKILL: the server writes nothing about it; the host starts it again after its backoff.
    const killed = desktopServerPids(desk.display);
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    const end = await outcome(panel, 60_000);
    assert.equal(killed.length, 1, `computer-use-mcp processes on ${desk.display}: ${killed}`);
    assert.equal(end.outcome, 'finished', end.text);
    assert.equal(seen.length, 2);
    assert.match(lastText(seen[1]), /typed 96 characters on the desktop \(the desktop server had stopped; the host started it again and the action ran then\)/);
    // The piece in flight failed with the server, and went again once it was back; the rest followed.
    const pieces = (await activityEntries(panel)).filter((e) => e.kind === 'call' && JSON.parse(e.args).action === 'type' && /^r+$/.test(JSON.parse(e.args).text)).sort((a, b) => a.at - b.at);
    const failed = pieces.findIndex((e) => e.code === 'PROVIDER_UNAVAILABLE');
    assert.ok(failed >= 1, JSON.stringify(pieces.map((e) => e.code)));
    assert.equal(pieces[failed + 1].args, pieces[failed].args, 'the same piece, made once more');
    assert.deepEqual(pieces.filter((e) => e.code !== 'PROVIDER_UNAVAILABLE').map((e) => e.code), Array(pieces.length - 1).fill('OK'));
    xdo(['key', 'ctrl+c', 'type', 'stty sane; clear']);
    xdo(['key', 'Return']);
  });

  test('a desktop server that dies again after its restart ends the task once, naming it, without its start-up banner', async () => {
    const { panel } = shared;
    // From the first step's answer on, every computer-use-mcp on this display is killed as soon as it shows
    // (looked for every 25 ms), until the task has ended.
    let killing = false;
    let kills = 0;
    let killer = Promise.resolve();
    const seen = script([
      () => {
        killing = true;
        killer = (async () => {
          while (killing) {
            for (const pid of desktopServerPids(desk.display)) {
              try { process.kill(pid, 'SIGKILL'); kills += 1; } catch { /* gone already */ }
            }
            await new Promise((r) => setTimeout(r, 25));
          }
        })();
        return act('Click(point=(500,500))');
      },
      () => act("Finished(content='should not get here')"),
    ]);
    try {
      await panel.click('#new-conversation');
      await panel.check('input[name="surface"][value="desktop"]');
      await runTask(panel, 'Click in the middle of the screen');
      const end = await outcome(panel, 90_000);
      assert.equal(end.outcome, 'error', end.text);
      console.log(`# the task's end when computer-use-mcp dies again after its restart (${kills} kills): ${end.text}`);
      assert.match(end.text, /the desktop server "computer-use-mcp" \(desktop\.\*\) failed on desktop\.computer, and (again after the host restarted it|the host did not start it again in time): PROVIDER_UNAVAILABLE/);
      assert.doesNotMatch(end.text, /running on stdio|last words/, 'its banner is not quoted');
      assert.equal(end.text.match(/failed on/g).length, 1, 'said once');
      assert.equal(seen.length, 1, 'the model is not asked again');
    } finally {
      killing = false;
      await killer;
    }
    // The host starts it again once it is left alone: the desktop is there for what follows.
    await finishOnDesktop(panel);
  });
});

describe('the desktop offer follows the host', () => {
  let env;
  let site;
  before(async () => {
    site = await serve({ routes: { '/plain.html': { body: '<!doctype html><title>Plain page</title><p>Nothing here.</p>' } } });
    // The host's only server has no screenshot tool: no profile fits.
    const config = { providers: [annotatedProvider({ log: path.join(tempDir('gnosis-nodesk-'), 'notes.jsonl') })], log: { level: 'debug' } };
    env = await launch({ config, grantOrigins: PAGE_ORIGINS, args: [NO_DISCARD] });
  });
  after(async () => {
    await env?.close();
    await site?.close();
  });

  test('the panel, the Page Assistant and the options page say why the desktop is not offered; a desktop server added while they are open is offered at once, with the same grants in both places, and removed, no longer', async () => {
    const WHY = 'No MCP server the host lists has a screenshot tool a desktop profile can use (servers: notes). Add a desktop server (computer-use-mcp, Munim), or map its tools in the side panel\'s Settings → Desktop.';
    const { panel, target } = await openPanelAndTarget(env, site.url('/plain.html'));
    await storeSettings(panel, { apiUrl: 'http://127.0.0.1:9/v1', model: 'venus-test' });
    const note = panel.locator('#desktop-note');
    // Nobody hovers or focuses anything in the panel: it follows the host's pushes.
    const noteSays = (want) => waitFor(async () => (await note.textContent()) === want && (await note.isVisible()), { what: `the note: ${want}`, timeoutMs: 20_000 });
    await noteSays(`The desktop is not offered. ${WHY}`);
    assert.equal(await panel.isDisabled('#surface-desktop'), true);
    await shootPanel(panel, 'desktop_not_offered_400', { width: 400, height: 640 });
    await panel.click('#show-settings');
    await waitFor(async () => (await panel.textContent('#desktop-status')) === WHY, { what: 'Settings → Desktop says why' });
    assert.equal(await panel.isHidden('#desktop-grants'), true);
    await panel.click('#show-chat');

    // The Page Assistant's bar: Desktop cannot be chosen, and it says why.
    await enableToggle(panel);
    await target.bringToFront();
    const cdp = await target.context().newCDPSession(target);
    const off = await waitFor(async () => { const b = await bar(target, cdp); return b?.visible && b.where.desktop.label === 'Desktop (not offered)' && b; }, { what: 'the bar\'s Desktop not offered' });
    assert.equal(off.where.desktop.disabled, true);
    assert.equal(off.where.value, 'tab');
    assert.equal(off.where.title, `Where the task starts. The desktop is not offered: ${WHY}`);

    // The options page's Agent view: the same reason, and where to add a server.
    const options = await env.openOptions('#agent');
    await waitFor(async () => (await options.textContent('#agent-desktop-status')) === `The desktop is not offered. ${WHY}`, { what: 'the Agent view says why' });
    assert.equal(await options.isVisible('#agent-desktop-setup'), true);
    assert.equal(await options.isHidden('#agent-grants'), true);
    assert.equal(await options.isHidden('#run'), true, 'Start and Stop belong to the chat site');
    await shootWhole(options, 'options_agent_not_offered_400', 400);

    // A desktop server is added (as the setup page does) while all three are open.
    const added = await options.evaluate(({ type, provider }) => chrome.runtime.sendMessage({ type, provider }), { type: BRIDGE.SET_PROVIDER, provider: {
      name: 'fixed-screen', command: process.execPath, args: [FIXED_SCREEN], prefix: 'fixed',
    } });
    assert.equal(added.ok, true, JSON.stringify(added));
    await panel.locator('#surface-desktop:enabled').waitFor({ state: 'attached', timeout: 20_000 });
    assert.equal(await note.isHidden(), true);
    const on = await waitFor(async () => { const b = await bar(target, cdp); return b && !b.where.desktop.disabled && b; }, { what: 'the bar offers Desktop' });
    assert.equal(on.where.desktop.label, 'Desktop');
    await waitFor(async () => (await options.textContent('#agent-desktop-status')) === 'Desktop server "fixed", profile: computer-use-mcp (one computer tool).', { what: 'the Agent view offers the desktop' });
    // The suggestion, by what a call does: looking runs, pointing and typing ask; nothing saved yet.
    const row = (kind) => options.locator(`#agent-grant-list li[data-kind="${kind}"]`);
    await row('look').waitFor();
    assert.equal(await row('look').locator('input[value="allow"]').isChecked(), true);
    assert.equal(await row('point').locator('input[value="ask"]').isChecked(), true);
    assert.equal(await row('type').locator('input[value="ask"]').isChecked(), true);
    assert.match(await row('point').textContent(), /Pointing and clicking.*clicks, pointer moves, drags and scrolling.*through fixed\.computer/);
    assert.match(await options.textContent('#agent-grants-state'), /^Nothing is granted yet/);
    assert.match(await options.textContent('#agent-grant-remembered'), /Nothing remembered/);
    for (const w of [360, 400, 480]) await shootWhole(options, `options_agent_${w}`, w);

    // Saved on the options page, shown in the side panel; changed in the side panel, shown on the options page.
    await panel.bringToFront();
    await row('point').locator('label.allow').click();
    // Typing without asking takes the tick that says what it means.
    await row('type').locator('label.allow').click();
    assert.equal(await options.isVisible('#agent-grant-typing-risk'), true);
    await options.click('#agent-grants-save');
    await waitFor(async () => /^Not saved: tick the box/.test(await options.textContent('#agent-grants-state')), { what: 'refused without the tick' });
    assert.equal(env.config().policy?.origins?.[AGENT_ORIGIN], undefined);
    await shootWhole(options, 'options_agent_typing_risk_400', 400);
    await options.check('#agent-grant-typing-confirm');
    await options.click('#agent-grants-save');
    await waitFor(async () => /^Saved/.test(await options.textContent('#agent-grants-state')), { what: 'saved from the options page' });
    // The one tool serves every kind: the host asks about each call, the extension answers by its kind.
    assert.deepEqual(env.config().policy.origins[AGENT_ORIGIN], { ask: ['fixed.computer'] });
    await panel.click('#show-settings');
    const panelRow = (kind, d) => panel.locator(`input[name="desktop-grant-${kind}"][value="${d}"]`);
    await waitFor(async () => (await panelRow('point', 'allow').isChecked()) && panelRow('type', 'allow').isChecked(), { what: 'the panel shows Allow' });
    assert.match(await panel.textContent('#desktop-grants-state'), /^Saved/);
    for (const kind of ['look', 'point', 'type']) await panel.locator(`#desktop-grant-list li[data-kind="${kind}"] label.deny`).click();
    await panel.click('#desktop-grants-save');
    await waitFor(async () => /^Saved/.test(await panel.textContent('#desktop-grants-state')), { what: 'saved from the panel' });
    assert.deepEqual(env.config().policy.origins[AGENT_ORIGIN], { deny: ['fixed.computer'] });
    await options.click('#agent-refresh');
    await waitFor(() => row('type').locator('input[value="deny"]').isChecked(), { what: 'the options page shows Block' });
    await panel.click('#show-chat');

    // Removed: none of them offers the desktop any more.
    const removed = await options.evaluate((type) => chrome.runtime.sendMessage({ type, name: 'fixed-screen' }), BRIDGE.REMOVE_PROVIDER);
    assert.equal(removed.ok, true, JSON.stringify(removed));
    await noteSays(`The desktop is not offered. ${WHY}`);
    assert.equal(await panel.isDisabled('#surface-desktop'), true);
    await waitFor(async () => (await bar(target, cdp))?.where.desktop.disabled === true, { what: 'the bar no longer offers Desktop' });
    await waitFor(async () => (await options.textContent('#agent-desktop-status')) === `The desktop is not offered. ${WHY}`, { what: 'the Agent view follows' });
    await options.close();
  });
});
