// Auto-send follows the send button until the person chooses it, and the run
// bar's word on sending says what happens to a result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings, followSendButton, normalizeSettings, sendState } from '../../../bridge/core/site_settings.js';

const saved = (over) => normalizeSettings({ ...defaultSettings(), ...over }).settings;

test('a send button set on a page with none turns Auto-send on; clearing it turns it off', () => {
  const fresh = defaultSettings();
  assert.equal(fresh.autoSend, false);
  const picked = followSendButton(fresh, saved({ source: '.reply', destination: '#prompt', sendButton: '#send' }));
  assert.equal(picked.autoSend, true, 'on once a send button is set');
  assert.equal(normalizeSettings(picked, { requireSelectors: true }).errors.sendButton, undefined);
  const cleared = followSendButton(picked, saved({ ...picked, sendButton: '' }));
  assert.equal(cleared.autoSend, false, 'off when it is cleared, so Start does not refuse');
  assert.deepEqual(normalizeSettings(cleared, { requireSelectors: true }).errors, {});
  // Another selector for the same button changes nothing.
  assert.equal(followSendButton(picked, saved({ ...picked, sendButton: 'button[type=submit]' })).autoSend, true);
});

test("the person's own choice stands, whichever way, and is kept with the settings", () => {
  const off = saved({ autoSend: false, autoSendChosen: true });
  assert.equal(off.autoSendChosen, true);
  assert.equal(followSendButton(defaultSettings(), { ...off, sendButton: '#send' }).autoSend, false);
  const on = saved({ autoSend: true, autoSendChosen: true, sendButton: '#send' });
  assert.equal(followSendButton(on, { ...on, sendButton: '' }).autoSend, true);
  // Settings stored before this choice existed read as not chosen.
  assert.equal(normalizeSettings({ sendButton: '#send', autoSend: false }).settings.autoSendChosen, false);
});

test('the run bar says whether a result is sent or waits in the input', () => {
  assert.deepEqual(sendState({ autoSend: true, sendButton: '#send' }), { on: true, text: 'Auto-send on: each result is sent' });
  assert.equal(sendState({ autoSend: false, sendButton: '#send' }).on, false);
  assert.match(sendState({ autoSend: false }).text, /^Auto-send off: you send each result$/);
  assert.equal(sendState(undefined).on, false);
});

test('sending with Enter: Auto-send may go without a send button, follows it like one, and the run bar says how results go', () => {
  const { settings, errors } = normalizeSettings({ source: '.a', destination: '.b', autoSend: true, sendWithEnter: true }, { requireSelectors: true });
  assert.deepEqual(errors, {});
  assert.equal(settings.sendWithEnter, true);
  assert.equal(followSendButton(defaultSettings(), { ...defaultSettings(), sendWithEnter: true }).autoSend, true);
  assert.deepEqual(sendState({ autoSend: true, sendWithEnter: true }), { on: true, text: 'Auto-send on: each result is sent with Enter' });
});
