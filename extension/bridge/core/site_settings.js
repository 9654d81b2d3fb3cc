// The per-origin settings of the chat bridge (source, destination,
// auto-send and its button, or Enter in the input), the sign that a reply is still
// streaming, the preset they came from, whether Start inserts the capability
// prompt, how images from tool results are attached (by what means, the
// longest side they are scaled to, how many a message), plus the safety and
// timing knobs; auto-send follows the send button
// until the person chooses it, and the run bar's word on sending.
// Pure normalisation; the worker stores them in chrome.storage.local.
import { toCss } from './selector.js';
import { presetById } from './presets.js';
import { ATTACH_BY } from './attach_means.js';
import { IMAGE_SETTINGS } from './result_images.js';

/** Settings of an origin that has none saved. */
export function defaultSettings() {
  return {
    source: '', destination: '', autoSend: false, autoSendChosen: false, sendButton: '', sendWithEnter: false, streaming: '', preset: '', promptOnStart: false,
    debounceMs: 800, maxConsecutive: 25, maxChars: 20_000,
    attachBy: '', attachTarget: '', imageMaxSide: IMAGE_SETTINGS.maxSide.default, maxImages: IMAGE_SETTINGS.perMessage.default,
  };
}

/**
 * Normalises user input. Returns {settings, errors}; errors name the field.
 * @param {object} input
 * @param {{requireSelectors?: boolean}} [options] arming needs source and destination
 */
export function normalizeSettings(input, { requireSelectors = false } = {}) {
  const d = defaultSettings();
  const i = input || {};
  const s = {
    source: str(i.source), destination: str(i.destination), autoSend: !!i.autoSend, autoSendChosen: !!i.autoSendChosen, sendButton: str(i.sendButton),
    sendWithEnter: !!i.sendWithEnter,
    streaming: str(i.streaming), preset: presetById(str(i.preset)) ? str(i.preset) : '', promptOnStart: !!i.promptOnStart,
    debounceMs: int(i.debounceMs, d.debounceMs, 100, 10_000),
    maxConsecutive: int(i.maxConsecutive, d.maxConsecutive, 1, 1000),
    maxChars: int(i.maxChars, d.maxChars, 1000, 1_000_000),
    attachBy: ATTACH_BY.includes(str(i.attachBy)) ? str(i.attachBy) : '', attachTarget: str(i.attachTarget),
    imageMaxSide: int(i.imageMaxSide, d.imageMaxSide, IMAGE_SETTINGS.maxSide.min, IMAGE_SETTINGS.maxSide.max),
    maxImages: int(i.maxImages, d.maxImages, IMAGE_SETTINGS.perMessage.min, IMAGE_SETTINGS.perMessage.max),
  };
  const errors = {};
  for (const field of ['source', 'destination', 'sendButton', 'streaming', 'attachTarget']) {
    if (s[field] && !toCss(s[field])) errors[field] = 'not a class, id or CSS selector';
  }
  if (requireSelectors) {
    if (!s.source) errors.source = 'required';
    if (!s.destination) errors.destination = 'required';
    if (s.autoSend && !s.sendButton && !s.sendWithEnter) errors.sendButton = 'required when Auto-send is on';
  }
  return { settings: s, errors };
}

function str(v) {
  return typeof v === 'string' ? v.trim() : '';
}

function int(v, dflt, min, max) {
  const n = Number(v);
  if (v === '' || v === undefined || v === null || !Number.isFinite(n)) return dflt;
  return Math.min(max, Math.max(min, Math.round(n)));
}

/**
 * Auto-send follows the send button until the person chooses it: it turns
 * on when a send button is set where there was none (a result written into
 * the input and never sent looks like the bridge did nothing), and off when
 * the button is cleared. Once the person ticked or unticked it
 * (autoSendChosen), their choice stands.
 * @param {object} before the settings stored until now (normalised)
 * @param {object} after the settings about to be stored (normalised)
 * @returns {object} after, with autoSend set as it follows
 */
export function followSendButton(before, after) {
  if (after.autoSendChosen) return after;
  const had = !!(before?.sendButton || before?.sendWithEnter);
  const has = !!(after.sendButton || after.sendWithEnter);
  if (!had && has) return { ...after, autoSend: true };
  if (had && !has) return { ...after, autoSend: false };
  return after;
}

/** What the run bar says about sending: whether a result is sent or left in the input. */
export function sendState(settings) {
  if (settings?.autoSend && settings.sendButton) return { on: true, text: 'Auto-send on: each result is sent' };
  if (settings?.autoSend && settings.sendWithEnter) return { on: true, text: 'Auto-send on: each result is sent with Enter' };
  return { on: false, text: 'Auto-send off: you send each result' };
}
