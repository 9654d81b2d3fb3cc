// The real open-source chat UIs the bridge's auto-detection is measured and
// tested on (tests/e2e/fixtures/<id>: each built from its npm packages by
// tests/setup.sh), how a person uses each, and a scripted model behind them:
// the pages stream their replies from /v1/chat/completions on their own origin,
// which is passed on to an OpenAI-compatible server whose replies the test
// queues (lib/model_server.js).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { REPO } from './harness.js';
import { serve } from './server.js';
import { startModelServer, textOf } from './model_server.js';

const fixture = (id) => path.join(REPO, 'tests', 'e2e', 'fixtures', id, 'dist');

/**
 * Each UI: where it is built, the elements a person (and the truth of a
 * measurement) knows it by, and how a person types and sends there.
 * truth: the selectors that name each field's elements (checked against what detection proposes).
 */
export const REAL_UIS = [
  {
    id: 'realchat', framework: 'React', name: 'assistant-ui (React, real, built from npm)', input: '.aui-composer-input',
    truth: { source: '.aui-assistant-message-content', destination: '.aui-composer-input', sendButton: 'button.aui-composer-send', streaming: 'button.aui-composer-cancel' },
    send: 'button.aui-composer-send', newChat: null,
  },
  {
    id: 'gradiochat', framework: 'Svelte', name: 'Gradio chatbot (Svelte, real, built from npm)', input: 'textarea[data-testid="textbox"]',
    truth: { source: '[data-testid="bot"]', destination: 'textarea[data-testid="textbox"]', sendButton: 'button.submit-button', streaming: 'button.stop-button' },
    send: 'button.submit-button', newChat: 'button.new-chat',
  },
  {
    id: 'antdxchat', framework: 'Vue', name: 'Ant Design X Vue (Vue, real, built from npm)', input: '.ant-sender textarea',
    truth: { source: '.ant-bubble-start .ant-bubble-content', destination: '.ant-sender textarea', sendButton: '.ant-sender-actions-btn', streaming: '.ant-sender-actions-btn-loading-button' },
    send: '.ant-sender-actions-btn', newChat: 'button:has-text("New chat")',
  },
];

/** The UIs whose build is there; a missing one throws with the fix. */
export function builtUis(list = REAL_UIS) {
  for (const ui of list) {
    if (!fs.existsSync(path.join(fixture(ui.id), 'index.html'))) throw new Error(`${fixture(ui.id)} is not built: run tests/setup.sh (npm ci and the build in tests/e2e/fixtures/${ui.id})`);
  }
  return list;
}

/**
 * A scripted model: each request streams the next queued reply (else
 * "Noted."), six characters at a time, paceMs apart. requests: what the page
 * sent; said(): the person's messages, in order.
 */
export async function scriptedModel({ paceMs = 30 } = {}) {
  const queued = [];
  const said = [];
  const model = await startModelServer(({ body }) => {
    const last = body.messages?.[body.messages.length - 1];
    if (last) said.push(textOf(last));
    const text = queued.shift() ?? 'Noted.';
    return { chunks: text.match(/[\s\S]{1,6}/g) || [''], chunkDelayMs: paceMs, stream: true };
  });
  return {
    model,
    queue: (text) => queued.push(text),
    said: () => [...said],
    close: () => model.close(),
  };
}

/** Serves a UI's build on its own origin, its /v1/chat/completions passed on to model. */
export function serveUi(ui, model) {
  const pass = (req, res) => {
    const out = http.request(`${model.model.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
      res.writeHead(r.statusCode, { 'content-type': r.headers['content-type'] || 'application/json' });
      r.pipe(res);
    });
    out.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err.message));
    });
    req.pipe(out);
  };
  return serve({ dir: fixture(ui.id), routes: { '/v1/chat/completions': pass } });
}

/**
 * A UI served with its model: url(path), queue(page, text) the next reply,
 * said(page) the person's messages so far, close(). assistant-ui runs its
 * model in the page (window.realchat); the others stream from a scripted
 * OpenAI-compatible server.
 */
export async function openUi(ui, { paceMs = 30 } = {}) {
  if (ui.id === 'realchat') {
    const site = await serve({ dir: fixture(ui.id) });
    return {
      origin: site.origin, url: site.url,
      queue: (page, text) => page.evaluate(([t, ms]) => {
        window.realchat.pace(ms);
        window.realchat.queue(t);
      }, [text, paceMs]),
      said: (page) => page.evaluate(() => window.realchat.sent()),
      close: () => site.close(),
    };
  }
  const model = await scriptedModel({ paceMs });
  const site = await serveUi(ui, model);
  return {
    origin: site.origin, url: site.url,
    queue: async (page, text) => model.queue(text),
    said: async () => model.said(),
    close: async () => {
      await site.close();
      await model.close();
    },
  };
}

/** Types text into the UI's input at a person's pace and clicks its send button. */
export async function typeAndSend(page, ui, text, { enter = false } = {}) {
  await page.locator(ui.input).waitFor();
  await page.locator(ui.input).click();
  await page.keyboard.type(text, { delay: 35 });
  if (enter) await page.keyboard.press('Enter');
  else await page.locator(ui.send).first().click();
}
