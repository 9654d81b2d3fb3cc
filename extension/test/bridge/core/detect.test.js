// The detection rules (bridge/core/detect.js) on small page descriptions:
// which input, send button, messages and streaming sign they propose, how
// sure they are, and that they leave to Pick what they cannot tell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as D from '../../../bridge/core/detect.js';

/**
 * A description from a compact tree: [tag, {attrs, class, name, text, rect, ...flags}, ...children].
 * Every node is visible and 10×10 unless told otherwise; text sets textLength.
 */
function page(root, { streamed = [], viewport = { width: 1000, height: 800 } } = {}) {
  const nodes = [];
  const walk = ([tag, props = {}, ...kids], parent) => {
    const { class: cls = '', text = '', rect, ...rest } = props;
    const attrs = Object.fromEntries(Object.entries(rest).filter(([k]) => /^(data-|aria-|id$|role$|type$|placeholder$|name$|title$|disabled$|contenteditable$)/.test(k)));
    const flags = Object.fromEntries(Object.entries(rest).filter(([k]) => !(k in attrs)));
    const node = {
      id: nodes.length, parent, tag, attrs, classes: cls.split(/\s+/).filter(Boolean), name: flags.label || attrs['aria-label'] || attrs.placeholder || '',
      textLength: text.length, rect: rect || { x: 0, y: 0, width: 10, height: 10 }, visible: true, editable: '', ...flags,
    };
    delete node.label;
    if (tag === 'textarea') node.editable = 'field';
    if (attrs.contenteditable === 'true') node.editable = 'rich';
    if ('disabled' in attrs) node.disabled = true;
    nodes.push(node);
    for (const k of kids) {
      const before = nodes.length;
      walk(k, node.id);
      // A parent holds its children's text.
      node.textLength += nodes[before].textLength;
    }
  };
  walk(root, -1);
  return { nodes, viewport, streamed };
}

const idOf = (desc, pred) => desc.nodes.find(pred).id;

const composer = (...extra) => ['form', { class: 'composer' },
  ['textarea', { placeholder: 'Message the assistant', rect: { x: 100, y: 700, width: 600, height: 50 } }],
  ['button', { 'aria-label': 'Attach a file' }],
  ...extra];

test('a textarea with a placeholder in a form, and its Send button even while disabled', () => {
  const desc = page(['body', {}, ['main', {}], composer(['button', { 'aria-label': 'Send', disabled: '' }])]);
  const got = D.propose(desc);
  assert.equal(got.destination.node, idOf(desc, (n) => n.tag === 'textarea'));
  assert.equal(got.destination.sure, true);
  assert.equal(got.sendButton.node, idOf(desc, (n) => n.attrs['aria-label'] === 'Send'));
  assert.equal(got.sendButton.sure, true);
  assert.match(got.sendButton.why, /“Send”/);
});

test('a search box at the top loses to the chat input at the bottom', () => {
  const desc = page(['body', {},
    ['header', {}, ['input', { type: 'search', placeholder: 'Search chats', editable: 'field', rect: { x: 0, y: 10, width: 300, height: 30 } }]],
    composer(['button', { type: 'submit', text: 'Send', label: 'Send' }])]);
  const got = D.propose(desc);
  assert.equal(got.destination.node, idOf(desc, (n) => n.tag === 'textarea'));
});

test('two look-alike inputs with no label: a guess, left unsure', () => {
  const box = (y) => ['div', {}, ['div', { contenteditable: 'true', rect: { x: 0, y, width: 400, height: 40 } }]];
  const got = D.propose(page(['body', {}, box(600), box(650)]));
  assert.equal(got.destination.sure, false);
});

test('no send button while the input is empty (only a voice button there): left to Pick', () => {
  const desc = page(['body', {}, ['form', {}, ['div', { contenteditable: 'true', id: 'prompt', rect: { x: 0, y: 700, width: 500, height: 40 } }],
    ['button', { 'aria-label': 'Start voice mode' }]]]);
  const got = D.propose(desc);
  assert.equal(got.sendButton, null);
});

test('a button that is only near the input, with no word saying send, is a guess', () => {
  const desc = page(['body', {}, ['div', {}, ['textarea', { placeholder: 'Type here', rect: { x: 0, y: 700, width: 500, height: 40 } }], ['div', { role: 'button', class: 'icon' }]]]);
  const got = D.propose(desc);
  assert.equal(got.sendButton.sure, false);
});

test('the reply seen growing while it streamed, apart from the person’s message: every reply, not the person’s', () => {
  const turn = (who, text, extra = {}) => ['div', { class: `turn ${who}-turn` }, ['div', { class: 'bubble' }, ['p', { class: 'text', text, ...extra }]]];
  const desc = page(['body', {},
    ['div', { class: 'list' }, turn('me', 'hello there', { userMessage: true }), turn('them', 'an earlier reply'), turn('me', 'again'), turn('them', 'Hi! How can I help?', { grew: 6 })],
    composer(['button', { 'aria-label': 'Send' }])]);
  const got = D.propose(desc);
  assert.equal(got.source.sure, true);
  assert.match(got.source.selector, /them-turn/);
  assert.match(got.source.why, /grew/);
});

test('replies marked by the page (data-message-author-role) without a reply seen', () => {
  const turn = (role, text) => ['article', { 'data-testid': 'conversation-turn' }, ['div', { 'data-message-author-role': role }, ['div', { class: role === 'assistant' ? 'markdown prose' : 'whitespace-pre-wrap', text }]]];
  const desc = page(['body', {}, ['div', { id: 'thread' }, turn('user', 'hi'), turn('assistant', 'Hello!'), turn('user', 'more'), turn('assistant', 'Sure.')], composer()]);
  const got = D.propose(desc);
  assert.ok(got.source, 'a proposal');
  assert.ok(/assistant|markdown|prose/.test(got.source.selector), got.source.selector);
  assert.equal(got.source.sure, true);
});

test('replies marked by the page without a reply seen: the message, not the bar of buttons after it that is marked the same', () => {
  const reply = (text) => ['div', { class: 'aui-assistant-message-root' },
    ['div', { class: 'aui-assistant-message-content', text }],
    ['div', { class: 'aui-assistant-action-bar-root' }, ['button', { text: 'Copy', label: 'Copy' }], ['button', { text: 'Refresh', label: 'Refresh' }]]];
  const mine = (text) => ['div', { class: 'aui-user-message-root' }, ['div', { class: 'aui-user-message-content', text }]];
  const desc = page(['body', {}, ['div', { class: 'aui-thread-viewport' }, mine('hello there'), reply('Sure. Here is a reply.'), mine('again'), reply('Another one.')], composer()]);
  const got = D.propose(desc);
  assert.ok(got.source, 'a proposal');
  assert.match(got.source.selector, /message-content/);
  assert.doesNotMatch(got.source.selector, /action-bar/);
});

test('an empty conversation: no messages to propose, left to Pick (or to watching a reply)', () => {
  const got = D.propose(page(['body', {}, ['main', {}], composer(['button', { 'aria-label': 'Send' }])]));
  assert.equal(got.source, null);
  assert.equal(got.streaming, null);
});

test('the streaming sign: a control that showed only while the reply streamed', () => {
  const desc = page(['body', {}, composer(['button', { 'aria-label': 'Send' }])], {
    streamed: [{ tag: 'button', attrs: { 'aria-label': 'Stop generating' }, classes: ['icon'], name: 'Stop generating' }],
  });
  const got = D.propose(desc);
  assert.equal(got.streaming.selector, '[aria-label="Stop generating"]');
  assert.equal(got.streaming.sure, true);
});

test('the streaming sign: messages that carry a streaming attribute', () => {
  const desc = page(['body', {}, ['div', { 'data-is-streaming': 'false' }, ['div', { class: 'reply', text: 'done' }]], composer()]);
  assert.equal(D.propose(desc).streaming.selector, '[data-is-streaming="true"]');
});

test('the streaming sign: a stop button showing now, by the input', () => {
  const desc = page(['body', {}, composer(['button', { 'aria-label': 'Stop response' }])]);
  const got = D.propose(desc);
  assert.equal(got.streaming.node, idOf(desc, (n) => n.attrs['aria-label'] === 'Stop response'));
  assert.notEqual(got.sendButton?.node, got.streaming.node, 'a stop button is not the send button');
});

test('a streamed control whose selector still matches something visible is not proposed', () => {
  const desc = page(['body', {}, composer(['button', { class: 'icon', 'aria-label': 'Send' }])], {
    streamed: [{ tag: 'button', attrs: {}, classes: ['icon'], name: '' }],
  });
  assert.equal(D.propose(desc).streaming, null);
});

test('controlAt: the smallest control whose box holds the point, or none', () => {
  const r = (x, y, width, height) => ({ rect: { x, y, width, height } });
  assert.equal(D.controlAt([r(0, 0, 100, 100), r(40, 40, 20, 20), r(200, 200, 5, 5)], 50, 50), 1);
  assert.equal(D.controlAt([r(0, 0, 10, 10)], 50, 50), -1);
  assert.equal(D.controlAt([r(0, 0, 0, 0)], 0, 0), -1);
});

test('selectors: the send button by its own name, not a class a stop button shares; a reply not by its status', () => {
  const desc = page(['body', {},
    ['div', { class: 'list' },
      ['div', { class: 'user-root' }, ['p', { class: 'text', 'data-status': 'complete', text: 'hi', userMessage: true }]],
      ['div', { class: 'assistant-root' }, ['p', { class: 'text', 'data-status': 'complete', text: 'Hello!', grew: 5 }]]],
    ['form', { class: 'composer-root' }, ['textarea', { class: 'composer-input', placeholder: 'Write a message...', rect: { x: 0, y: 700, width: 600, height: 40 } }],
      ['button', { class: 'btn btn-primary composer-send', label: 'Send', disabled: '' }]]], {
    streamed: [{ tag: 'button', attrs: {}, classes: ['btn', 'btn-primary', 'composer-cancel'], name: 'Cancel' }],
  });
  const got = D.propose(desc);
  assert.equal(got.sendButton.selector, '.composer-send');
  assert.equal(got.streaming.selector, '.composer-cancel');
  assert.doesNotMatch(got.source.selector, /complete/);
  assert.match(got.source.selector, /assistant-root/);
  assert.equal(got.destination.selector, '.composer-input');
});

test('hashed CSS-module classes: replies by their class stem; a div the page styles as its send button', () => {
  const turn = (bubble, text, extra = {}) => ['div', { class: 'ChatMessage_chatMessage__xk9Hx' }, ['div', { class: bubble }, ['p', { text, ...extra }]]];
  const desc = page(['body', {},
    ['div', { class: 'list' }, turn('Message_humanMessageBubble__Qw3e1', 'hi', { userMessage: true }), turn('Message_botMessageBubble__aYc7V', 'Hello!', { grew: 4 })],
    ['div', { class: 'composer' }, ['div', { contenteditable: 'true', class: 'chat-input-editor', rect: { x: 0, y: 700, width: 600, height: 40 } }],
      ['div', { class: 'send-button-container disabled' }, ['svg', {}]]]]);
  const got = D.propose(desc);
  assert.match(got.source.selector, /\[class\*="Message_botMessageBubble__"\]$/);
  assert.equal(got.sendButton.selector, '.send-button-container');
});

test('a div around a button is not the send button: the button is', () => {
  const desc = page(['body', {}, ['form', { class: 'composer-root' }, ['textarea', { placeholder: 'Write a message', rect: { x: 0, y: 700, width: 600, height: 40 } }],
    ['div', { class: 'send-wrap' }, ['button', { class: 'composer-send', label: 'Send', disabled: '' }]]]]);
  const got = D.propose(desc);
  assert.equal(desc.nodes[got.sendButton.node].tag, 'button');
});

test('the only editable area on the page, even unlabelled and high up, is the input', () => {
  const desc = page(['body', {}, ['form', {}, ['div', { class: 'editor' }, ['div', { contenteditable: 'true', class: 'ProseMirror', rect: { x: 0, y: 40, width: 500, height: 40 } }]],
    ['button', { type: 'submit', 'aria-label': 'Send question' }]]]);
  const got = D.propose(desc);
  assert.equal(got.destination.sure, true);
  assert.match(got.destination.why, /the only one on the page/);
});
