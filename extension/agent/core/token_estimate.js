// Token estimation for servers that report no usage: the prompt size of a
// message list from its text length (CHARS_PER_TOKEN characters a token) and
// its images' pixel sizes (one token per 28 x 28 px patch), and the usage
// figures of one request, the server's when it sent any, else this estimate
// marked estimated: true. The meter and compaction read those figures.
//
// Pure module.

import { imageSize, splitDataUrl } from '../../shared/core/images.js';

/** Characters counted as one token by the estimate. */
export const CHARS_PER_TOKEN = 4;
/** Side of the square image patch one token stands for (Qwen2.5-VL, UI-Venus' base: 28 px). */
export const IMAGE_PATCH_PX = 28;
/** Tokens counted for an image whose size cannot be read. */
export const IMAGE_FALLBACK_TOKENS = 1200;

/** Tokens an image part costs: one per 28 x 28 px patch, or IMAGE_FALLBACK_TOKENS when its size is unknown. */
export function imageTokens(url) {
  const parsed = splitDataUrl(url);
  const size = parsed ? imageSize(parsed.base64) : null;
  if (!size || !size.width || !size.height) return IMAGE_FALLBACK_TOKENS;
  return Math.ceil(size.width / IMAGE_PATCH_PX) * Math.ceil(size.height / IMAGE_PATCH_PX) + 2;
}

/**
 * Estimated prompt tokens of a message list, for servers that report no
 * usage: one token per CHARS_PER_TOKEN characters of text, each image by its
 * pixel size, and a few tokens per message for the chat format.
 */
export function estimateTokens(messages) {
  let chars = 0;
  let tokens = 0;
  for (const m of messages || []) {
    tokens += 4;
    if (typeof m.content === 'string') chars += m.content.length;
    else for (const p of m.content || []) {
      if (p.type === 'text') chars += String(p.text || '').length;
      else if (p.type === 'image_url') tokens += imageTokens(p.image_url?.url);
    }
  }
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * The usage of one request for the meter and the records: the server's
 * figures when it sent any, else an estimate from the messages sent and the
 * reply, marked estimated: true.
 */
export function usageOrEstimate(usage, messages, replyText = '') {
  if (usage && typeof (usage.prompt_tokens ?? usage.promptTokens) === 'number') return usage;
  const prompt = estimateTokens(messages);
  const completion = Math.ceil(String(replyText).length / CHARS_PER_TOKEN);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, estimated: true };
}
