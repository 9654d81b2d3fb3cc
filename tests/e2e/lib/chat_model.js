// A chat page whose assistant is a scripted model server (lib/model_server.js).
// The real chat UI (fixtures/realchat with ?model=) asks the server itself;
// a replica (fixtures/sites/) has no network of its own, so here each message
// it sends (the person's, or a tool result the bridge wrote and sent) goes to
// the server as an OpenAI Chat Completions request with the conversation so
// far — the images the page carried with it as image_url parts — and the
// server's answer streams back into the page as the assistant's reply. Either
// way turn() is one round: the page's next message, the model's answer.
import { waitFor } from './harness.js';

/** How many messages a page has sent so far. */
export async function sentCount(page, kind) {
  return kind === 'replica' ? page.evaluate(() => window.chat.sent.length) : page.evaluate(() => window.realchat.sent().length);
}

/**
 * Connects a chat page to a model server.
 * @param {import('playwright-core').Page} page
 * @param {{url: string, requests: object[]}} model the server (startModelServer)
 * @param {'replica'|'realchat'} kind realchat: the page was opened with ?model=<model.url>
 * @param {{from?: number}} [o] from: how many of the page's sent messages came before (a new conversation on the same page)
 * @returns {{turn(): Promise<void>, messages: object[]}}
 */
export function chatModel(page, model, kind, { from = 0 } = {}) {
  const messages = [];
  let handled = from;
  if (kind === 'realchat') {
    let asked = model.requests.length;
    return {
      messages,
      async turn({ timeoutMs = 30_000 } = {}) {
        await waitFor(() => model.requests.length > asked, { timeoutMs, what: `the real chat UI's request ${asked + 1} to the model` });
        asked++;
      },
    };
  }
  return {
    messages,
    async turn({ timeoutMs = 30_000 } = {}) {
      const text = await waitFor(async () => (await page.evaluate(() => window.chat.sent))[handled] ?? null,
        { timeoutMs, what: `message ${handled + 1} sent by the chat page` });
      const images = await page.evaluate((k) => window.chat.sentImages?.(k) || [], handled);
      handled++;
      messages.push({
        role: 'user',
        content: images.length
          ? [{ type: 'text', text }, ...images.map((i) => ({ type: 'image_url', image_url: { url: `data:${i.type};base64,${i.base64}` } }))]
          : text,
      });
      const res = await fetch(`${model.url}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted', stream: false, messages }),
      });
      const content = (await res.json()).choices[0].message.content;
      messages.push({ role: 'assistant', content });
      // About 200 tokens a reply, however long (a long tool call streams in a second or two).
      await page.evaluate((t) => { window.chat.stream(t, { tokenSize: Math.max(4, Math.ceil(t.length / 200)) }); }, content);
    },
  };
}
