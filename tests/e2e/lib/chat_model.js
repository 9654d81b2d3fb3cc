// A chat page whose assistant is a scripted model server (lib/model_server.js):
// each message the page sends (the person's, or a tool result the bridge
// wrote and sent) goes to the server as an OpenAI Chat Completions request
// with the conversation so far — the images the page attached to it as
// image_url parts — and the server's answer streams back into the page as
// the assistant's reply. The replicas (fixtures/sites/) and the real chat UI
// (fixtures/realchat, held with realchat.hold(true)) have no network of
// their own, so this carries the turns; the model is the test's script.
import { waitFor } from './harness.js';

/** How many messages a page has sent so far. */
export async function sentCount(page, kind) {
  return (await PAGES[kind].sent(page)).texts.length;
}

/** How each kind of page says what it sent and takes a reply. */
const PAGES = {
  // window.chat: sent (texts), sentImages (data URLs per sent message, when the page records attachments), stream(text).
  replica: {
    sent: (page) => page.evaluate(() => ({ texts: [...window.chat.sent], images: (window.chat.sentImages || []).map((l) => [...l]) })),
    // About 200 tokens a reply, however long (a long tool call streams in a second or two).
    reply: (page, text) => page.evaluate((t) => { window.chat.stream(t, { tokenSize: Math.max(4, Math.ceil(t.length / 200)) }); }, text),
  },
  // window.realchat: sent() (texts), sentImages?() (data URLs per sent message), queue(text) for a held reply.
  realchat: {
    sent: (page) => page.evaluate(() => ({ texts: window.realchat.sent(), images: window.realchat.sentImages?.() || [] })),
    reply: (page, text) => page.evaluate((t) => window.realchat.queue(t), text),
  },
};

/**
 * Connects a chat page to a model server.
 * @param {import('playwright-core').Page} page
 * @param {{url: string}} model the server (startModelServer)
 * @param {'replica'|'realchat'} kind
 * @param {{from?: number}} [o] from: how many of the page's sent messages came before (a new conversation on the same page)
 * @returns {{turn(): Promise<{content: string}>, messages: object[]}}
 *   turn(): waits for the page's next sent message, asks the model, hands its answer to the page
 */
export function chatModel(page, model, kind, { from = 0 } = {}) {
  const p = PAGES[kind];
  const messages = [];
  let handled = from;
  return {
    messages,
    async turn({ timeoutMs = 30_000 } = {}) {
      const sent = await waitFor(async () => {
        const s = await p.sent(page);
        return s.texts.length > handled ? s : null;
      }, { timeoutMs, what: `message ${handled + 1} sent by the chat page` });
      const text = sent.texts[handled];
      const images = sent.images[handled] || [];
      handled++;
      messages.push({
        role: 'user',
        content: images.length ? [{ type: 'text', text }, ...images.map((url) => ({ type: 'image_url', image_url: { url } }))] : text,
      });
      const res = await fetch(`${model.url}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted', stream: false, messages }),
      });
      const body = await res.json();
      const content = body.choices[0].message.content;
      messages.push({ role: 'assistant', content });
      await p.reply(page, content);
      return { content };
    },
  };
}
