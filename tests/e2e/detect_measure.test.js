// How well auto-detection does, measured: on every chat replica
// (fixtures/sites/, presets not consulted: detection never reads them) and
// on the real chat UIs (lib/realchats.js: React, Svelte and Vue, each built from
// its npm packages), the page proposes its four fields
// while a person sends one message and the reply streams; each proposal is
// then checked against the elements the site's preset (or, for a real UI,
// its known markup) names: the same input, the same send button, one match
// in each assistant reply and none in the person's, a sign that shows while a
// reply streams and not after. Prints the table docs/bridge.md carries; fails
// when a field the detection was sure of is wrong (it would be ticked on the
// page).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { builtUis, openUi, typeAndSend } from './lib/realchats.js';
import { PRESETS } from '../../extension/bridge/core/presets.js';
import { PAGE_LOADER } from '../../extension/bridge/core/page_scripts.js';

const FIELDS = ['destination', 'sendButton', 'source', 'streaming'];
const REPLY = 'Sure. Here is a reply that streams for a short while, the way a model writes it.';

/** The real UIs (lib/realchats.js): a person types at their pace and clicks the send button. */
const real = (ui) => ({
  id: ui.id, name: ui.name, path: '/index.html', truth: ui.truth, ui,
  async exchange(chat, text) {
    await chat.bringToFront();
    await this.served.queue(chat, text);
    const before = (await this.served.said(chat)).length;
    await typeAndSend(chat, ui, 'hello there');
    await waitFor(async () => (await this.served.said(chat)).length > before, { what: `${ui.id}: the message sent` });
  },
  type: async (chat) => {
    await chat.locator(ui.input).click();
    await chat.keyboard.type('again');
  },
  async stream(chat, text) {
    await this.exchange(chat, text);
  },
});

const replica = (p) => ({
  id: p.id, name: `${p.name} (replica)`, path: `/sites/${p.id}.html`, truth: p,
  async type(chat) {
    await chat.locator(p.destination).first().click();
    await chat.keyboard.type('hello there');
  },
  async exchange(chat, text) {
    await this.type(chat);
    await chat.locator(p.sendButton).first().click();
    await chat.evaluate((t) => window.chat.stream(t, { tokenMs: 25 }), text);
  },
  async stream(chat, text) {
    await chat.evaluate((t) => window.chat.stream(t, { tokenMs: 20 }), text);
  },
});

const REALS = builtUis().map(real);
const SITES = [...REALS, ...PRESETS.map(replica)];

let env;
const servers = {};

before(async () => {
  for (const s of SITES) {
    if (s.ui) {
      s.served = await openUi(s.ui, { paceMs: 40 });
      servers[s.id] = s.served;
    } else {
      servers[s.id] = await serve();
    }
  }
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'] });
});

after(async () => {
  await env?.close();
  for (const s of Object.values(servers)) await s?.close();
});

/** Starts detection in the tab of url (as the options page does, without waiting for the person). */
function startDetection(url) {
  return env.evalInWorker(async ([u, files]) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
    await chrome.scripting.executeScript({ target: { tabId: tab.id }, files });
    chrome.tabs.sendMessage(tab.id, { type: 'bridge.detect', show: true }).catch(() => {});
    return tab.id;
  }, [url, [PAGE_LOADER]]);
}

function peek(tabId) {
  return env.evalInWorker(([id]) => chrome.tabs.sendMessage(id, { type: 'bridge.detect', show: false }), [tabId]);
}

/** In the page: whether a proposed selector names what the truth selector names, for a field. */
function agrees(chat, field, proposed, truth) {
  return chat.evaluate(([f, p, t]) => {
    const all = (css) => {
      try {
        return css ? [...document.querySelectorAll(css)] : [];
      } catch {
        return [];
      }
    };
    const shown = (el) => el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true }) && el.getBoundingClientRect().width > 0;
    const editor = (css) => {
      for (const c of all(css)) {
        if (c.matches('textarea, input, [contenteditable="true"]')) return c;
        const inner = c.querySelector('textarea, input, [contenteditable="true"]');
        if (inner) return inner;
      }
      return null;
    };
    if (f === 'destination') return !!editor(p) && editor(p) === editor(t);
    if (f === 'sendButton') {
      const a = all(p);
      const b = all(t);
      return a.length > 0 && a.length === b.length && a.every((x) => b.includes(x));
    }
    if (f === 'source') {
      const a = all(p);
      const b = all(t);
      return b.length > 0 && a.length === b.length && b.every((x) => a.filter((y) => x.contains(y) || y.contains(x)).length === 1);
    }
    return all(p).some(shown) === all(t).some(shown);
  }, [field, proposed, truth]);
}

const rows = [];

/** Runs detection on one site as a person would and checks each field against the truth. */
async function measure(site) {
  const chat = await env.newPage(servers[site.id].url(site.path));
  await chat.setViewportSize({ width: 1000, height: 760 });
  await chat.waitForLoadState('load');
  const tabId = await startDetection(chat.url());
  const empty = (await peek(tabId)).fields;
  await site.exchange(chat, REPLY);
  // The reply is done once the page has watched it stop growing.
  await waitFor(async () => (await peek(tabId)).replies > 0 || null, { what: `${site.id}: the reply seen to its end`, timeoutMs: 20_000 }).catch(() => {});
  const found = (await peek(tabId)).fields;
  const verdict = {};
  // The send button is checked while there is text (some sites show it only then).
  await site.type(chat);
  for (const f of ['destination', 'sendButton', 'source']) {
    const p = found[f];
    verdict[f] = !p ? 'pick' : (await agrees(chat, f, p.selector, site.truth[f])) ? (p.sure ? 'right' : 'proposed') : (p.sure ? 'wrong' : 'proposed-wrong');
  }
  // The streaming sign is checked during a reply and after it.
  const p = found.streaming;
  if (!p) verdict.streaming = 'pick';
  else if (!site.truth.streaming) verdict.streaming = p.sure ? 'wrong' : 'proposed-wrong';
  else {
    await chat.evaluate(() => document.activeElement?.blur());
    const streaming = site.stream(chat, `${REPLY} ${REPLY} ${REPLY}`);
    await waitFor(() => chat.evaluate((t) => [...document.querySelectorAll(t)].some((el) => el.getBoundingClientRect().width > 0 && el.checkVisibility({ checkVisibilityCSS: true })), site.truth.streaming), { what: `${site.id}: streaming`, timeoutMs: 15_000 });
    const during = await agrees(chat, 'streaming', p.selector, site.truth.streaming);
    await streaming;
    await waitFor(() => chat.evaluate((t) => ![...document.querySelectorAll(t)].some((el) => el.getBoundingClientRect().width > 0 && el.checkVisibility({ checkVisibilityCSS: true })), site.truth.streaming), { what: `${site.id}: done`, timeoutMs: 15_000 });
    const afterwards = await agrees(chat, 'streaming', p.selector, site.truth.streaming);
    verdict.streaming = during && afterwards ? (p.sure ? 'right' : 'proposed') : (p.sure ? 'wrong' : 'proposed-wrong');
  }
  rows.push({ site: site.name, empty, found, verdict });
  await chat.close();
  const wrong = FIELDS.filter((f) => verdict[f] === 'wrong');
  assert.deepEqual(wrong, [], `${site.name}: sure but wrong: ${wrong.map((f) => `${f} = ${found[f].selector}`).join(', ')}`);
}

// The real UIs one at a time, each in the front tab as the person types there (a page
// in a tab behind others may hold back its rendering: Gradio's does); the replicas side
// by side, each in its own tab on its own origin.
describe('auto-detection on the real UIs', () => {
  for (const site of REALS) test(`auto-detection on ${site.name}`, () => measure(site));
});

describe('auto-detection on the replicas', { concurrency: 4 }, () => {
  for (const site of SITES.filter((x) => !x.ui)) test(`auto-detection on ${site.name}`, () => measure(site));
});

test('the table', () => {
  const LABEL = { destination: 'Inject into', sendButton: 'Send button', source: 'Extract from', streaming: 'Still replying while' };
  const list = (row, kinds) => FIELDS.filter((f) => kinds.includes(row.verdict[f])).map((f) => LABEL[f]).join(', ') || '—';
  const lines = ['| site | fields right | proposed, unticked | left to Pick |', '| --- | --- | --- | --- |'];
  rows.sort((a, b) => SITES.findIndex((s) => s.name === a.site) - SITES.findIndex((s) => s.name === b.site));
  for (const r of rows) {
    const right = FIELDS.filter((f) => r.verdict[f] === 'right').length;
    lines.push(`| ${r.site} | ${right}/4 | ${list(r, ['proposed', 'proposed-wrong'])} | ${list(r, ['pick'])} |`);
  }
  const total = rows.reduce((n, r) => n + FIELDS.filter((f) => r.verdict[f] === 'right').length, 0);
  lines.push(`| **all ${rows.length}** | **${total}/${rows.length * 4}** | | |`);
  console.log(lines.join('\n'));
  if (process.env.GNOSIS_DETECT_TABLE) fs.writeFileSync(process.env.GNOSIS_DETECT_TABLE, `${lines.join('\n')}\n${JSON.stringify(rows.map((r) => ({ site: r.site, verdict: r.verdict, found: r.found })), null, 1)}\n`);
  assert.equal(rows.length, SITES.length);
});
