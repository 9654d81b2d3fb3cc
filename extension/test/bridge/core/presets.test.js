// The preset table: every site the bridge knows out of the box, how a page
// is matched to one (origin first, then structure), and what it fills in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRESETS, PRESET_FIELDS, detectSelectors, editedFromPreset, matchPreset, presetById, presetSettings } from '../../../bridge/core/presets.js';
import { normalizeSettings } from '../../../bridge/core/site_settings.js';
import { toCss } from '../../../bridge/core/selector.js';

const SITES = ['chatgpt', 'claude', 'gemini', 'copilot', 'deepseek', 'grok', 'perplexity', 'mistral', 'qwen', 'kimi', 'aistudio', 'poe', 'huggingchat', 'openwebui', 'librechat'];

test('the table has the major chat sites, each with usable selectors and a way to be recognised', () => {
  assert.deepEqual(PRESETS.map((p) => p.id), SITES);
  for (const p of PRESETS) {
    assert.ok(p.name && p.detect.length, p.id);
    for (const f of ['source', 'destination', 'sendButton']) assert.ok(p[f], `${p.id}.${f}`);
    // Used as typed: toCss must not read a selector as an id/class shorthand.
    for (const css of [...p.detect, p.source, p.destination, p.sendButton, p.streaming].filter(Boolean)) assert.equal(toCss(css), css, `${p.id}: ${css}`);
    const { errors } = normalizeSettings(presetSettings(p), { requireSelectors: true });
    assert.deepEqual(errors, {}, p.id);
    for (const o of p.origins) assert.match(o, /^https:\/\/[a-z0-9.-]+$/, p.id);
  }
  assert.deepEqual(presetById('openwebui').origins, [], 'self-hosted: structure only');
  assert.deepEqual(presetById('librechat').origins, []);
});

test('a page is matched by its origin first, then by its structure, in table order', () => {
  const none = () => false;
  const only = (...css) => (s) => css.includes(s);
  const cases = [
    ['https://chatgpt.com', none, 'chatgpt', 'origin'],
    ['https://chat.openai.com', none, 'chatgpt', 'origin'],
    ['https://claude.ai', only(...presetById('gemini').detect), 'claude', 'origin'],
    ['http://127.0.0.1:8080', only(...presetById('gemini').detect), 'gemini', 'structure'],
    ['http://127.0.0.1:8080', only(...presetById('openwebui').detect), 'openwebui', 'structure'],
    ['http://127.0.0.1:8080', only(...presetById('qwen').detect, ...presetById('openwebui').detect), 'qwen', 'structure'],
    ['http://127.0.0.1:8080', only(...presetById('librechat').detect), 'librechat', 'structure'],
    ['https://chat.example.com', only(presetById('claude').detect[0]), null, null],
    ['https://chat.example.com', none, null, null],
  ];
  for (const [origin, matches, id, by] of cases) {
    const got = matchPreset(origin, matches);
    assert.equal(got?.preset.id ?? null, id, `${origin} ${id}`);
    assert.equal(got?.by ?? null, by, `${origin} ${id}`);
  }
  assert.equal(new Set(detectSelectors()).size, detectSelectors().length);
  for (const p of PRESETS) for (const css of p.detect) assert.ok(detectSelectors().includes(css));
});

test('a preset fills in its selectors with auto-send on; edits are noticed', () => {
  const p = presetById('chatgpt');
  const s = presetSettings(p);
  assert.equal(s.preset, 'chatgpt');
  assert.equal(s.autoSend, true);
  for (const f of PRESET_FIELDS) assert.equal(s[f], p[f]);
  assert.equal(editedFromPreset(s, p), false);
  assert.equal(editedFromPreset({ ...s, sendButton: '#mine' }, p), true);
});
