// A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 for the
// browser agent's end-to-end tests, and the vision model behind the real chat
// UI (fixtures/realchat with ?model=; it answers CORS preflights). It plays
// no model: each request is handed to the test's script, which inspects what
// the extension sent (system prompt, screenshots, viewport, previous results)
// and answers with the next action — as SSE when asked to stream, or as plain
// JSON. Fault injection (status codes
// with Retry-After, non-JSON bodies, hung responses) is part of the script's
// answer. Every request body is kept for the test to check.
import http from 'node:http';

/**
 * Starts the server.
 * @param {(req:{n:number, body:object, headers:object}) => Promise<Answer>|Answer} script
 *   Answer: {content, usage?, stream?: boolean} — a completion (streams when the request asked to;
 *           usage null: no usage in the reply);
 *           {chunks: string[], chunkDelayMs?, usage?} — a streamed completion sent piece by piece as given,
 *           chunkDelayMs apart (a tag can be cut anywhere, as real servers do);
 *           {status, headers?, body?} — a raw reply (faults);
 *           {hang: true} — accept and never answer (the connection stays open).
 * @returns {Promise<{url:string, origin:string, requests:object[], close():Promise<void>}>}
 */
export async function startModelServer(script) {
  const requests = [];
  const hung = new Set();
  const server = http.createServer((req, res) => {
    // A web page may call it too (the real chat UI's model, fixtures/realchat): CORS, preflight answered here.
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type, authorization' });
      return res.end();
    }
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { raw += c; });
    req.on('end', async () => {
      let body;
      try { body = JSON.parse(raw); } catch { body = { unparsable: raw }; }
      const entry = { n: requests.length + 1, body, headers: req.headers, path: req.url, at: Date.now() };
      requests.push(entry);
      let answer;
      try {
        answer = await script(entry);
      } catch (err) {
        answer = { status: 500, body: `script error: ${err.message}` };
        entry.scriptError = err;
      }
      if (answer.hang) {
        hung.add(res);
        entry.hung = true;
        res.on('close', () => { entry.closedAt = Date.now(); });
        return;
      }
      if (answer.status) {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers || {}) });
        return res.end(answer.body ?? '');
      }
      // usage: null plays a server that reports no usage at all.
      const usage = answer.usage === null ? undefined : answer.usage || { prompt_tokens: 100 + entry.n, completion_tokens: 20, total_tokens: 120 + entry.n };
      if (answer.chunks) answer.content = answer.chunks.join('');
      const stream = answer.stream ?? body.stream === true;
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({
          id: `cmpl-${entry.n}`, object: 'chat.completion', model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }], usage,
        }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // Split the content into a few chunks so the client really reassembles a stream (or send the script's own).
      const c = answer.content;
      const size = Math.max(1, Math.ceil(c.length / 4));
      const pieces = answer.chunks || Array.from({ length: Math.ceil(c.length / size) }, (_, i) => c.slice(i * size, (i + 1) * size));
      for (const piece of pieces) {
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
        if (answer.chunkDelayMs) await new Promise((r) => setTimeout(r, answer.chunkDelayMs));
      }
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      if (usage) res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    url: `${origin}/v1`,
    requests,
    close: () => new Promise((resolve) => {
      for (const r of hung) r.destroy();
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

/** The text parts of a message's content. */
export function textOf(message) {
  if (typeof message.content === 'string') return message.content;
  return message.content.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
}

/** Every image part of a request, in order. */
export function imagesOf(body) {
  return body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url') : []));
}

/** The viewport the extension reported in its last user message. */
export function viewportOf(body) {
  const last = textOf(body.messages[body.messages.length - 1]);
  const m = /Viewport: (\d+) x (\d+) CSS pixels/.exec(last);
  if (!m) throw new Error(`no viewport facts in the last message: ${last}`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** Normalised 0..999 point of a CSS point for a viewport (the model's view of the screenshot). */
export function normalise(x, y, viewport) {
  return [Math.round((x / viewport.width) * 999), Math.round((y / viewport.height) * 999)];
}

/** Pixel size of a base64 JPEG data URL, read from its start-of-frame marker. */
export function jpegSize(dataUrl) {
  const buf = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) throw new Error('not a JPEG marker');
    const marker = buf[i + 1];
    const len = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  throw new Error('no JPEG frame header');
}
