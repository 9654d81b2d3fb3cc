// The desktop surface's pure parts: both built-in profiles (their calls, and
// the calls checked against the tools' real input schemas), the choice of a
// profile from the host's tools, a profile that names a missing tool, the
// mapping of model points onto the server's screenshot at three desktop
// sizes (one scaled by the server and again by the agent), the screenshot
// read from a tool result, and the surfaces wrapper switching between tab
// and desktop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import {
  BUILTIN_PROFILES, callsFor, chooseProfile, missingTools, profileProblems, screenshotFrom, suggestedGrants, toolUses, whyNoDesktop,
} from '../../../agent/core/desktop_profiles.js';
import { planDesktopAction, toDesktop } from '../../../agent/core/desktop_actions.js';
import { createSurfaces, surfacesPrompt } from '../../../agent/core/desktop_surface.js';
import { schemaProblems } from '../../../agent/core/desktop_schema.js';

const [CUM, MUNIM] = BUILTIN_PROFILES;
// computer-use-mcp 1.8.0's `computer` tool as it lists it (descriptions left out).
const CUM_SCHEMA = {
  type: 'object', $schema: 'http://json-schema.org/draft-07/schema#', additionalProperties: false, required: ['action'],
  properties: {
    action: { type: 'string', enum: ['key', 'type', 'mouse_move', 'left_click', 'left_click_drag', 'right_click', 'middle_click', 'double_click', 'scroll', 'get_screenshot', 'get_cursor_position'] },
    coordinate: { minItems: 2, maxItems: 2, type: 'array', items: { type: 'number' } },
    text: { type: 'string' },
  },
};
const munimSchema = (tool) => JSON.parse(fs.readFileSync(new URL(`../../../../tests/fakemunim/schemas/${tool}.json`, import.meta.url), 'utf8'));
const MUNIM_TOOLS = ['screenshot', 'click', 'type_text', 'press_keys', 'scroll', 'move_mouse', 'drag'];
const cumCaps = [{ name: 'desktop.computer' }];
const munimCaps = [...MUNIM_TOOLS, 'echo', 'slow'].map((t) => ({ name: `computer.${t}` }));

test('computer-use-mcp profile: one computer tool, the action in its arguments', () => {
  const v = { point: [10, 20], from: [1, 2], to: [3, 4], text: 'hi', keys: ['ctrl', 'Shift', 't'], direction: 'down' };
  assert.deepEqual(callsFor(CUM, 'desktop', 'screenshot', v), [{ capability: 'desktop.computer', arguments: { action: 'get_screenshot' } }]);
  assert.deepEqual(callsFor(CUM, 'desktop', 'click', v), [{ capability: 'desktop.computer', arguments: { action: 'left_click', coordinate: [10, 20] } }]);
  assert.deepEqual(callsFor(CUM, 'desktop', 'right_click', v)[0].arguments, { action: 'right_click', coordinate: [10, 20] });
  assert.deepEqual(callsFor(CUM, 'desktop', 'double_click', v)[0].arguments, { action: 'double_click', coordinate: [10, 20] });
  assert.deepEqual(callsFor(CUM, 'desktop', 'drag', v).map((c) => c.arguments), [{ action: 'mouse_move', coordinate: [1, 2] }, { action: 'left_click_drag', coordinate: [3, 4] }]);
  assert.deepEqual(callsFor(CUM, 'desktop', 'type', v)[0].arguments, { action: 'type', text: 'hi' });
  assert.deepEqual(callsFor(CUM, 'desktop', 'key', v)[0].arguments, { action: 'key', text: 'ctrl+shift+t' });
  assert.deepEqual(callsFor(CUM, 'desktop', 'scroll', v)[0].arguments, { action: 'scroll', coordinate: [10, 20], text: 'down:300' });
  assert.deepEqual(profileProblems(CUM, 'desktop', cumCaps, { 'desktop.computer': CUM_SCHEMA }), []);
  assert.deepEqual(suggestedGrants(CUM, 'desktop'), { 'desktop.computer': 'ask' });
  // The grants list says what each tool is for: the one tool does everything.
  assert.deepEqual(toolUses(CUM, 'desktop'), { 'desktop.computer': ['screenshots', 'clicks', 'right clicks', 'double clicks', 'pointer moves', 'drags', 'typing', 'keys', 'scrolling'] });
});

test('tool-per-action profile (Munim): each verb its own tool, checked against the fake Munim\'s real schemas', () => {
  const v = { point: [10, 20], from: [1, 2], to: [3, 4], text: 'hi', keys: ['ctrl', 'c'], direction: 'up' };
  assert.deepEqual(callsFor(MUNIM, 'computer', 'click', v), [{ capability: 'computer.click', arguments: { x: 10, y: 20, button: 'left' } }]);
  assert.deepEqual(callsFor(MUNIM, 'computer', 'right_click', v)[0].arguments, { x: 10, y: 20, button: 'right' });
  assert.deepEqual(callsFor(MUNIM, 'computer', 'double_click', v)[0].arguments, { x: 10, y: 20, button: 'left', double: true });
  assert.deepEqual(callsFor(MUNIM, 'computer', 'drag', v)[0].arguments, { from: { x: 1, y: 2 }, to: { x: 3, y: 4 } });
  assert.deepEqual(callsFor(MUNIM, 'computer', 'key', v)[0].arguments, { keys: ['ctrl', 'c'] });
  assert.deepEqual(callsFor(MUNIM, 'computer', 'scroll', v).map((c) => c.capability), ['computer.move_mouse', 'computer.scroll']);
  assert.deepEqual(callsFor(MUNIM, 'computer', 'scroll', v)[1].arguments, { direction: 'up', amount: 5 });
  const schemas = Object.fromEntries(MUNIM_TOOLS.map((t) => [`computer.${t}`, munimSchema(t)]));
  assert.deepEqual(profileProblems(MUNIM, 'computer', munimCaps, schemas), []);
  assert.deepEqual(suggestedGrants(MUNIM, 'computer'), {
    'computer.screenshot': 'allow', 'computer.click': 'ask', 'computer.move_mouse': 'ask', 'computer.drag': 'ask',
    'computer.type_text': 'ask', 'computer.press_keys': 'ask', 'computer.scroll': 'ask',
  });
  const uses = toolUses(MUNIM, 'computer');
  assert.deepEqual(uses['computer.screenshot'], ['screenshots'], 'the tool suggested Allow is the one only screenshots use');
  assert.deepEqual(uses['computer.move_mouse'], ['pointer moves', 'scrolling']);
  assert.deepEqual(Object.keys(uses).sort(), Object.keys(suggestedGrants(MUNIM, 'computer')).sort());
});

test('the profile is chosen from the tools the host lists; none fits: the desktop is not offered, and the panel says why', () => {
  assert.equal(chooseProfile(cumCaps).profile.id, 'computer-use-mcp');
  assert.equal(chooseProfile(cumCaps).prefix, 'desktop');
  assert.equal(chooseProfile(munimCaps).profile.id, 'tool-per-action');
  assert.equal(chooseProfile([{ name: 'notes.add' }, { name: 'computer.click' }]), null);
  assert.match(whyNoDesktop([{ name: 'notes.add' }]), /No MCP server the host lists has a screenshot tool .*servers: notes/);
  assert.match(whyNoDesktop([]), /lists no MCP tools/);
  // A tool the host cannot run does not count.
  assert.equal(chooseProfile([{ name: 'desktop.computer', unavailable: 'needs tasks' }]), null);
});

test('a profile that names a missing tool: refused when saved, not chosen, and the panel names the tool', () => {
  const custom = { ...MUNIM, id: 'mine', actions: { ...MUNIM.actions, screenshot: [{ tool: 'grab_screen', args: {} }] } };
  assert.deepEqual(missingTools(custom, 'computer', munimCaps), ['computer.grab_screen']);
  assert.deepEqual(profileProblems(custom, 'computer', munimCaps), ['computer.grab_screen is not listed by the host']);
  // Not chosen: the built-in that fits is used instead.
  assert.equal(chooseProfile(munimCaps, { prefix: 'computer', profile: custom }).profile.id, 'tool-per-action');
  assert.match(whyNoDesktop(munimCaps, { prefix: 'computer', profile: custom }), /names "computer\.grab_screen", which the host does not list/);
  // A custom profile that fits is preferred over the built-in.
  const fits = { ...MUNIM, id: 'mine', keyFormat: 'plus' };
  assert.equal(chooseProfile(munimCaps, { prefix: 'computer', profile: fits }).custom, true);
});

test('a profile whose arguments break the tool\'s schema is refused with the reasons', () => {
  const bad = { ...CUM, actions: { ...CUM.actions, click: [{ tool: 'computer', args: { action: 'click', coordinate: '$at' } }] } };
  const problems = profileProblems(bad, 'desktop', cumCaps, { 'desktop.computer': CUM_SCHEMA });
  assert.deepEqual(problems, [
    'click → desktop.computer $.action: "click" is not one of "key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "scroll", "get_screenshot", "get_cursor_position"',
    'click → desktop.computer $.coordinate: is object, the tool wants array',
  ]);
  assert.deepEqual(profileProblems({ ...CUM, keyFormat: 'x', actions: { nope: [] } }, 'desktop', cumCaps), [
    'keyFormat must be "plus" or "list"', '"nope" is not a desktop action (screenshot, click, right_click, double_click, move, drag, type, key, scroll)',
    'the profile maps no screenshot: the desktop cannot be seen without one',
  ]);
  // The oneOf of Munim's scroll: a form with both direction and a point fits neither branch.
  assert.match(schemaProblems(munimSchema('scroll'), { direction: 'up', amount: 5, to: { x: 1, y: 1 } })[0], /fits 0 of the 2 forms/);
  assert.deepEqual(schemaProblems(munimSchema('move_mouse'), { to: { x: 1, y: 2 } }), []);
  assert.match(schemaProblems(munimSchema('press_keys'), { keys: ['ctrl', 'pageup'] })[0], /does not match/);
});

test('coordinates 0..999 map onto the server\'s screenshot at three desktop sizes, one scaled twice', () => {
  // 1280x800: computer-use-mcp sends it as it is, the agent too.
  const small = { width: 1280, height: 800, sentWidth: 1280, sentHeight: 800 };
  assert.deepEqual(toDesktop([0, 0], small), [0, 0]);
  assert.deepEqual(toDesktop([500, 500], small), [641, 400]);
  assert.deepEqual(toDesktop([999, 999], small), [1279, 799]);
  // 1920x1080: computer-use-mcp scales it to 1464x823 (its 1.15 MP bound) and takes points there;
  // the agent sends 1280x720. The point is the same fraction of each.
  const scaled = { width: 1464, height: 823, sentWidth: 1280, sentHeight: 720 };
  assert.deepEqual(toDesktop([500, 500], scaled), [733, 412]);
  assert.deepEqual(toDesktop([999, 999], scaled), [1463, 822]);
  assert.deepEqual(toDesktop([640, 360], scaled, 'absolute'), [732, 412]);
  // 3840x2160 from a server that sends the whole screen (Munim): the agent sends 1280x720.
  const big = { width: 3840, height: 2160, sentWidth: 1280, sentHeight: 720 };
  assert.deepEqual(toDesktop([250, 750], big), [961, 1622]);
  assert.deepEqual(toDesktop([1279, 719], big, 'absolute'), [3837, 2157]);
  assert.deepEqual(toDesktop([999, 0], big), [3839, 0]);
});

test('a model action on the desktop: the calls, the result line, and the actions that only work in the tab', () => {
  const shot = { width: 1464, height: 823, sentWidth: 1280, sentHeight: 720 };
  const plan = (name, args = {}, s = shot) => planDesktopAction({ name, args }, { profile: CUM, prefix: 'desktop', shot: s });
  assert.deepEqual(plan('Click', { point: [500, 500] }), {
    calls: [{ capability: 'desktop.computer', arguments: { action: 'left_click', coordinate: [733, 412] } }],
    text: 'clicked the desktop at (733,412) of its 1464x823 screenshot',
  });
  assert.equal(plan('Hotkey', { keys: ['ctrl', 'l'], repeat: 2 }).calls.length, 2);
  assert.deepEqual(plan('PressEnter').calls[0].arguments, { action: 'key', text: 'enter' });
  assert.deepEqual(plan('Wait'), { calls: [], text: 'waited 2.5 s', waitMs: 2500 });
  assert.match(plan('Launch', { url: 'https://x.test/' }).error, /works only in the browser tab.*SwitchSurface\(surface='tab'\)/);
  assert.match(plan('Click', { point: [1, 1] }, null).error, /needs a desktop screenshot first/);
  const noDrag = { ...CUM, actions: { ...CUM.actions, drag: undefined } };
  assert.match(planDesktopAction({ name: 'Drag', args: { start: [1, 1], end: [2, 2] } }, { profile: noDrag, prefix: 'desktop', shot }).error, /maps no drag action/);
});

test('the screenshot is the result\'s image; not an image, another type, too big, or a tool error is a clear message', () => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
  assert.deepEqual(screenshotFrom({ content: [{ type: 'text', text: '{}' }, { type: 'image', data: png, mimeType: 'image/png' }] }, 'desktop.computer'),
    { ok: true, base64: png, mime: 'image/png', bytes: 8 });
  assert.match(screenshotFrom({ content: [{ type: 'text', text: 'ok' }] }, 'desktop.computer').error, /returned no image \(only text content\)/);
  assert.match(screenshotFrom({ content: [{ type: 'image', data: png, mimeType: 'image/gif' }] }, 'x.shot').error, /returned a image\/gif image; the agent reads PNG or JPEG/);
  assert.match(screenshotFrom({ content: [{ type: 'image', data: 'A'.repeat(23 * 1024 * 1024), mimeType: 'image/png' }] }, 'x.shot').error, /returned a 17 MiB screenshot; at most 16 MiB/);
  assert.match(screenshotFrom({ isError: true, content: [{ type: 'text', text: 'no display' }] }, 'x.shot').error, /x\.shot failed: no display/);
});

function fakeSurface(name, log) {
  return {
    start: async (o) => { log.push(`${name}.start${o?.resume ? ':resume' : ''}`); return { title: name }; },
    observe: async () => { log.push(`${name}.observe`); return { image: name, viewport: { width: 1, height: 1 } }; },
    act: async (a) => { log.push(`${name}.act:${a.name}`); return { text: `${a.name} on ${name}` }; },
    stop: async () => { log.push(`${name}.stop`); },
  };
}

test('surfaces: a task starts where the person chose, SwitchSurface moves it, stop lets both go', async () => {
  const log = [];
  const s = createSurfaces({ tab: fakeSurface('tab', log), desktop: fakeSurface('desktop', log), start: 'tab', state: { offered: true, prefix: 'desktop' } });
  assert.equal((await s.start()).surface, 'tab');
  assert.equal((await s.observe()).surface, 'tab');
  assert.deepEqual(await s.act({ name: 'SwitchSurface', args: { surface: 'desktop' } }), { text: 'now on the desktop: the next screenshot shows the whole screen', surface: 'desktop' });
  assert.equal((await s.observe()).surface, 'desktop');
  assert.deepEqual(await s.act({ name: 'Click', args: {} }), { text: 'Click on desktop', surface: 'desktop' });
  await s.stop();
  // After a Pause the tab is attached again only when the task goes back to it.
  await s.start({ resume: true });
  await s.act({ name: 'SwitchSurface', args: { surface: 'tab' } });
  assert.equal((await s.observe()).surface, 'tab');
  assert.deepEqual(log, ['tab.start', 'tab.observe', 'desktop.start', 'desktop.observe', 'desktop.act:Click', 'tab.stop', 'desktop.stop',
    'desktop.start', 'tab.start:resume', 'tab.observe']);
  assert.match(s.promptLines, /desktop server "desktop"[\s\S]*SwitchSurface\(surface='desktop'\)/);
});

test('surfaces: with no desktop, a task asked to start there ends saying why, and SwitchSurface to it says why', async () => {
  const log = [];
  const asked = createSurfaces({ tab: fakeSurface('tab', log), desktop: null, start: 'desktop', why: 'no screenshot tool' });
  await assert.rejects(asked.start(), /the desktop is not available: no screenshot tool/);
  const s = createSurfaces({ tab: fakeSurface('tab', log), desktop: null, start: 'tab', why: 'no screenshot tool' });
  assert.equal((await s.start()).surface, 'tab');
  assert.deepEqual(await s.act({ name: 'SwitchSurface', args: { surface: 'desktop' } }), { text: 'the desktop is not available: no screenshot tool', error: true, surface: 'tab' });
  assert.equal(s.promptLines, '');
  assert.equal(surfacesPrompt({ offered: false }), '');
});

test('the agent loop on the desktop: the step limit, the three-screenshot budget, the loop warning, the surface on each step', async () => {
  const { AgentSession, OUTCOME } = await import('../../../agent/core/agent_session.js');
  const { LOOP_WARNING } = await import('../../../agent/core/prompt.js');
  const raw = fs.readFileSync(new URL('../../../agent/prompts/venus_system.txt', import.meta.url), 'utf8');
  const log = [];
  let shot = 0;
  const desktop = {
    start: async () => ({ title: 'Desktop (desktop)' }),
    observe: async () => ({ image: `D${++shot}`, mime: 'image/jpeg', surface: 'desktop', viewport: { width: 1280, height: 720 }, desktop: { width: 1464, height: 823, server: 'desktop' } }),
    act: async (a) => { log.push(a.name); return { text: 'clicked the desktop at (733,412) of its 1464x823 screenshot' }; },
    stop: async () => { log.push('stop'); },
  };
  const browser = createSurfaces({ tab: fakeSurface('tab', []), desktop, start: 'desktop', state: { offered: true, prefix: 'desktop' } });
  const requests = [];
  const model = { complete: async (req) => { requests.push(req); return { content: '<think>t</think><action>Click(point=(500,500))</action>', usage: { prompt_tokens: 10 } }; } };
  const events = [];
  const s = new AgentSession({ browser, model, template: raw, config: { settings: { maxSteps: 4, temperature: 0, model: 'm', requestTimeoutMs: 1000, retryBaseMs: 1, retryMaxMs: 1 }, endpoint: 'e' }, onEvent: (e) => events.push(e) });
  const r = await s.run('click forever');
  assert.equal(r.outcome, OUTCOME.STEP_LIMIT);
  assert.equal(requests.length, 4);
  const last = requests.at(-1);
  const imgs = last.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url') : []));
  assert.deepEqual(imgs.map((p) => p.image_url.url), ['data:image/jpeg;base64,D2', 'data:image/jpeg;base64,D3', 'data:image/jpeg;base64,D4']);
  const text = last.messages.at(-1).content.find((p) => p.type === 'text').text;
  assert.match(text, /Surface: desktop \(the computer's screen, through the desktop server "desktop"\)\nScreenshot: 1280 x 720 pixels \(the server's is 1464 x 823\)/);
  assert.ok(text.includes(LOOP_WARNING), 'two identical replies warn on the desktop too');
  assert.match(last.messages[0].content, /SwitchSurface\(surface='desktop'\)/);
  assert.doesNotMatch(last.messages[0].content, /\{\{surfaces\}\}/);
  assert.deepEqual(events.filter((e) => e.type === 'action').map((e) => e.surface), ['desktop', 'desktop', 'desktop', 'desktop']);
  assert.deepEqual(log, ['Click', 'Click', 'Click', 'Click', 'stop']);
});

test('a long Type and a long Scroll go in short pieces (the profile says how long), so a Stop lets at most one land after it', async () => {
  const { textPieces, amountPieces } = await import('../../../agent/core/desktop_actions.js');
  const shot = { width: 1464, height: 823, sentWidth: 1280, sentHeight: 720 };
  const plan = (name, args, profile = CUM) => planDesktopAction({ name, args }, { profile, prefix: 'desktop', shot });
  const text = `echo ${'x'.repeat(50)} 😀 done`;
  const typed = plan('Type', { content: text });
  assert.equal(CUM.typeChunk, 24);
  assert.deepEqual(typed.calls.map((c) => c.arguments.text).join(''), text, 'the pieces make the text, in order');
  assert.ok(typed.calls.every((c) => [...c.arguments.text].length <= 24 && c.arguments.action === 'type'));
  assert.equal(typed.calls.length, 3);
  assert.equal(typed.text, `typed ${[...text].length} characters on the desktop`);
  assert.equal(plan('Type', { content: 'echo K-4821 > code.txt' }).calls.length, 1, 'a short text is one call');
  // No piece splits a character made of two UTF-16 units.
  assert.deepEqual(textPieces('ab😀cd', 3), ['ab😀', 'cd']);
  // computer-use-mcp's scroll of 300 in pieces of 100; the tool-per-action profile scrolls 5 in one.
  assert.deepEqual(plan('Scroll', { point: [500, 500], direction: 'down' }).calls.map((c) => c.arguments.text), ['down:100', 'down:100', 'down:100']);
  assert.deepEqual(planDesktopAction({ name: 'Scroll', args: { point: [500, 500], direction: 'up' } }, { profile: MUNIM, prefix: 'computer', shot }).calls.map((c) => c.arguments), [{ to: { x: 733, y: 412 } }, { direction: 'up', amount: 5 }]);
  assert.deepEqual(amountPieces(250, 100), [100, 100, 50]);
  assert.deepEqual(amountPieces(5, undefined), [5]);
  // A profile without pieces types in one call, as before.
  const whole = { ...CUM, typeChunk: undefined, scrollChunk: undefined };
  assert.equal(plan('Type', { content: text }, whole).calls.length, 1);
  assert.deepEqual(plan('Scroll', { point: [1, 1], direction: 'down' }, whole).calls.map((c) => c.arguments.text), ['down:300']);
  assert.deepEqual(profileProblems({ ...CUM, typeChunk: 0, scrollChunk: 2.5 }, 'desktop', cumCaps), ['typeChunk must be a whole number above 0', 'scrollChunk must be a whole number above 0']);
});

test('what a refused or failed desktop call says: the place that changes it, and a server\'s banner is never its last words', async () => {
  const { refusalText, refusedResult, serverFailureText, tellingLines, withoutQuietStderr } = await import('../../../agent/core/desktop_failures.js');
  const cases = [
    [{ code: 'FORBIDDEN', message: 'origin "chrome-extension://abcdefgh" may not execute desktop.computer; allow it for this site on the Gnosis options page', details: { reason: 'not-granted' } },
      'the agent may not use desktop.computer: allow it in Settings → Desktop'],
    [{ code: 'FORBIDDEN', details: { reason: 'denied' } }, 'the person declined desktop.computer in the approval window'],
    [{ code: 'FORBIDDEN', details: { reason: 'timeout' } }, 'nobody answered the approval window for desktop.computer in time'],
  ];
  for (const [reply, want] of cases) {
    assert.equal(refusalText('desktop.computer', reply), want);
    assert.doesNotMatch(refusedResult('desktop.computer', reply), /chrome-extension:|options page/);
  }
  assert.match(refusedResult('desktop.computer', cases[0][0]), /^refused: the agent may not use desktop\.computer: allow it in Settings → Desktop\. Nothing was done on the desktop\. Go on in the browser tab/);
  const banner = 'Computer Use MCP server running on stdio';
  const killed = { code: 'PROVIDER_UNAVAILABLE', message: `provider "computer-use-mcp" is down: exited (signal: killed); stderr: ${banner}`, details: { stderr: `${banner}\n${banner}` } };
  const provider = { name: 'computer-use-mcp', prefix: 'desktop', stderr: `${banner}\n${banner}` };
  const text = serverFailureText({ capability: 'desktop.computer', reply: killed, provider });
  assert.equal(text, 'the desktop server "computer-use-mcp" (desktop.*) failed on desktop.computer: PROVIDER_UNAVAILABLE: provider "computer-use-mcp" is down: exited (signal: killed). Check it on the setup page, then run the task again.');
  assert.match(serverFailureText({ capability: 'desktop.computer', reply: killed, provider, retried: 'failed' }), /failed on desktop\.computer, and again after the host restarted it: PROVIDER_UNAVAILABLE/);
  // Words that read as an error are quoted, each once, the last three.
  const crashed = { ...provider, stderr: `${banner}\nError: Cannot open display :99\n    at grab (x.js:1)\nError: Cannot open display :99\nfatal: giving up` };
  assert.match(serverFailureText({ capability: 'desktop.computer', reply: { code: 'EXECUTION_ERROR', message: 'boom' }, provider: crashed }),
    /: EXECUTION_ERROR: boom\. Its last words on stderr: Error: Cannot open display :99 \| fatal: giving up\. Check it/);
  assert.equal(tellingLines(banner), '');
  assert.equal(withoutQuietStderr('provider "x" is down: exited (exit status 1); stderr: Error: no display'), 'provider "x" is down: exited (exit status 1); stderr: Error: no display');
});

test('surfaces: moving to the desktop with nothing granted asks the person first, then goes on; "Not now" is the model\'s to read, or the end', async () => {
  const { NOT_GRANTED } = await import('../../../agent/core/desktop_surface.js');
  const grants = { configured: false, tools: ['desktop.computer'], suggested: { 'desktop.computer': 'ask' }, uses: {}, server: 'desktop' };
  const deskWith = (log, g) => ({ ...fakeSurface('desktop', log), start: async () => { log.push('desktop.start'); return { title: 'Desktop (desktop)', url: '', server: 'desktop', grants: g() }; } });
  const run = async ({ start, answer }) => {
    const log = [];
    let saved = false;
    const asked = [];
    const s = createSurfaces({
      tab: fakeSurface('tab', log), desktop: deskWith(log, () => (saved ? { configured: true } : grants)), start, state: { offered: true, prefix: 'desktop' },
      askGrants: async (g, signal) => { asked.push([g, signal]); saved = answer; return answer; },
    });
    return { s, log, asked };
  };
  // Started on the desktop, granted with one click: the task goes on, and is not asked again.
  const a = await run({ start: 'desktop', answer: true });
  const signal = new AbortController().signal;
  assert.deepEqual(await a.s.start({ signal }), { title: 'Desktop (desktop)', url: '', server: 'desktop', surface: 'desktop' });
  assert.deepEqual(a.asked, [[grants, signal]]);
  await a.s.act({ name: 'SwitchSurface', args: { surface: 'tab' } });
  await a.s.act({ name: 'SwitchSurface', args: { surface: 'desktop' } });
  assert.equal(a.asked.length, 1);
  // Started on the desktop, "Not now": the task ends saying so.
  const b = await run({ start: 'desktop', answer: false });
  await assert.rejects(b.s.start({}), (err) => err.code === 'FORBIDDEN' && err.message === NOT_GRANTED);
  // Started in the tab, "Not now" on a switch: the model reads it, and stays in the tab.
  const c = await run({ start: 'tab', answer: false });
  await c.s.start({});
  assert.deepEqual(await c.s.act({ name: 'SwitchSurface', args: { surface: 'desktop' } }), { text: `the desktop is not available: ${NOT_GRANTED}`, error: true, surface: 'tab' });
  assert.equal((await c.s.observe()).surface, 'tab');
  // Grants saved before (or the host could not say): no question.
  for (const g of [{ configured: true }, undefined]) {
    let asked = 0;
    const s = createSurfaces({ tab: fakeSurface('tab', []), desktop: deskWith([], () => g), start: 'desktop', state: { offered: true }, askGrants: async () => { asked += 1; return false; } });
    assert.equal((await s.start({})).surface, 'desktop');
    assert.equal(asked, 0);
  }
});

test('surfaces: a refused desktop screenshot sends a task that has the tab back there, its next observation saying why; a desktop-only task ends', async () => {
  const refused = Object.assign(new Error('the agent may not use desktop.computer: allow it in Settings → Desktop'), { code: 'FORBIDDEN' });
  const log = [];
  const desktop = { ...fakeSurface('desktop', log), observe: async () => { throw refused; } };
  const s = createSurfaces({ tab: fakeSurface('tab', log), desktop, start: 'tab', state: { offered: true, prefix: 'desktop' } });
  await s.start({});
  await s.act({ name: 'SwitchSurface', args: { surface: 'desktop' } });
  const o = await s.observe();
  assert.equal(o.surface, 'tab');
  assert.equal(s.surface, 'tab');
  assert.deepEqual(o.notes, ['The desktop screenshot was refused (the agent may not use desktop.computer: allow it in Settings → Desktop). You are on the browser tab again: go on here, or finish.']);
  const only = createSurfaces({ tab: fakeSurface('tab', []), desktop, start: 'desktop', state: { offered: true, prefix: 'desktop' } });
  await only.start({});
  await assert.rejects(only.observe(), /may not use desktop\.computer/);
  // Any other failure ends the task wherever it started.
  const broken = createSurfaces({ tab: fakeSurface('tab', []), desktop: { ...desktop, observe: async () => { throw new Error('the desktop server failed'); } }, start: 'tab', state: { offered: true } });
  await broken.start({});
  await broken.act({ name: 'SwitchSurface', args: { surface: 'desktop' } });
  await assert.rejects(broken.observe(), /the desktop server failed/);
});
