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
    node.text = text;
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

test('replies marked by the page (data-message-author-role) without a reply seen: proposed, but not sure until one is seen growing', () => {
  const turn = (role, text) => ['article', { 'data-testid': 'conversation-turn' }, ['div', { 'data-message-author-role': role }, ['div', { class: role === 'assistant' ? 'markdown prose' : 'whitespace-pre-wrap', text }]]];
  const desc = page(['body', {}, ['div', { id: 'thread' }, turn('user', 'hi'), turn('assistant', 'Hello!'), turn('user', 'more'), turn('assistant', 'Sure.')], composer()]);
  const got = D.propose(desc);
  assert.ok(got.source, 'a proposal');
  assert.ok(/assistant|markdown|prose/.test(got.source.selector), got.source.selector);
  assert.equal(got.source.sure, false);
  assert.match(got.source.why, /no reply seen streaming yet/);
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

// ---- issue 41: never a wrong field ticked as sure ---------------------------------

const chat = (turns, extra = []) => ['body', {}, ['div', { class: 'thread' }, ...turns], ...extra,
  ['form', { class: 'composer' }, ['textarea', { placeholder: 'Ask anything', rect: { x: 0, y: 700, width: 600, height: 40 } }], ['button', { class: 'icon-btn' }, ['svg', {}]]]];
const mine = (text) => ['div', { class: 'turn' }, ['div', { class: 'bubble', text, userMessage: true }]];
const theirs = (text, props = {}) => ['div', { class: 'turn from-model' }, ['div', { class: 'head', text: 'llama-3' }], ['div', { class: 'bubble', text, ...props }]];

test('a measuring copy of the input that grew while the person typed, off-screen and transparent, is never the reply', () => {
  const mirror = ['div', { class: 'measure', text: 'hello there', typed: 11, visible: false, rect: { x: 0, y: -9999, width: 600, height: 20 } }];
  const desc = page(chat([mine('hello there'), theirs('Hi! Here is a reply.', { grew: 6 })], [mirror]));
  const got = D.propose(desc);
  assert.equal(got.source.node, idOf(desc, (n) => n.text === 'Hi! Here is a reply.'));
  assert.equal(got.source.sure, true);
  // Nothing else grew: the copy alone is no reply, even if it grew after the send.
  const alone = page(chat([mine('hello there')], [['div', { class: 'measure', text: 'hello there', grew: 4, visible: false }]]));
  assert.equal(D.propose(alone).source, null);
  const typedOnly = page(chat([mine('hello there')], [['div', { class: 'measure', text: 'hello there', typed: 4, grew: 2 }]]));
  assert.equal(D.propose(typedOnly).source, null);
});

test('a reply seen growing outside any list that holds the person\'s message: proposed, not sure', () => {
  const desc = page(['body', {}, ['div', { class: 'answer', text: 'Hello there, a reply.', grew: 5 }],
    ['form', {}, ['textarea', { placeholder: 'Ask', rect: { x: 0, y: 700, width: 600, height: 40 } }]]]);
  const got = D.propose(desc);
  assert.equal(got.source.sure, false);
});

test('a label that stands the same in each reply (the model\'s name in its header) is never the reply', () => {
  // No reply seen: the page's marks alone; the header says "assistant" too.
  const marked = (text) => ['div', { class: 'turn' }, ['div', { class: 'assistant-name', text: 'Assistant' }], ['div', { class: 'assistant-body', text }]];
  const desc = page(chat([mine('hi'), marked('Hello, how can I help?'), mine('more'), marked('Here is more.')]));
  const got = D.propose(desc);
  assert.match(got.source.selector, /assistant-body/);
  assert.equal(got.source.sure, false);
  // Seen growing: the reply's body, and a selector that matches no header.
  const seen = page(chat([mine('hi'), theirs('Hello, how can I help?'), mine('more'), theirs('Here is more, streaming.', { grew: 5 })]));
  const s = D.propose(seen);
  assert.equal(s.source.node, idOf(seen, (n) => n.text === 'Here is more, streaming.'));
  assert.doesNotMatch(s.source.selector, /head/);
  assert.equal(s.source.sure, true);
});

test('the send button is what the person clicked to send: sure, even icon-only or labelled "Run ↵"', () => {
  const icon = page(chat([mine('hi')]));
  icon.nodes.find((n) => n.classes.includes('icon-btn')).clicked = true;
  const got = D.propose(icon);
  assert.equal(got.sendButton.node, idOf(icon, (n) => n.classes.includes('icon-btn')));
  assert.equal(got.sendButton.sure, true);
  assert.match(got.sendButton.why, /you clicked it to send/);
  const run = page(['body', {}, ['div', { class: 'bar' }, ['textarea', { placeholder: 'Type something', rect: { x: 0, y: 700, width: 600, height: 40 } }],
    ['button', { class: 'settings-toggle', text: 'Model' }], ['button', { class: 'n-button n-button--primary-type', text: 'Run ↵', label: 'Run ↵', clicked: true }]]]);
  const r = D.propose(run);
  assert.equal(r.sendButton.node, idOf(run, (n) => n.text === 'Run ↵'));
  assert.equal(r.sendButton.sure, true);
  assert.doesNotMatch(r.sendButton.selector || '', /--/);
});

test('sent with Enter: the button is only a guess from the page, and the proposal says the person sent with Enter', () => {
  const desc = page(chat([mine('hi')]));
  desc.sentBy = 'enter';
  const got = D.propose(desc);
  assert.equal(got.sendButton.sure, false);
  assert.equal(got.sendButton.enter, true);
  assert.match(got.sendButton.why, /you sent with Enter/);
  const none = page(['body', {}, ['div', {}, ['textarea', { placeholder: 'Ask', rect: { x: 0, y: 700, width: 600, height: 40 } }]]]);
  none.sentBy = 'enter';
  assert.deepEqual(D.propose(none).sendButton, { sure: false, why: 'you sent with Enter, and no send button was found', enter: true });
});

test('the streaming sign: a clickable div by the input that showed only while the reply streamed counts, and what was seen is told', () => {
  const stop = { tag: 'div', attrs: {}, classes: ['action-icon', 'is-loading'], name: '', clickable: 'pointer', near: true, icon: true };
  const got = D.propose(page(chat([mine('hi')]), { streamed: [stop] }));
  assert.equal(got.streaming.selector, '.action-icon');
  assert.equal(got.streaming.sure, true);
  assert.equal(got.streaming.seen, '<div class="action-icon is-loading">, holding an icon, by the input');
  // Far from the input, a guess; inside the reply (a code block's Copy), nothing.
  assert.equal(D.propose(page(chat([mine('hi')]), { streamed: [{ ...stop, near: false }] })).streaming.sure, false);
  assert.equal(D.propose(page(chat([mine('hi')]), { streamed: [{ ...stop, inReply: true }] })).streaming, null);
});

test('a send button selector never holds a class that says a state', () => {
  const desc = page(['body', {}, ['div', { class: 'bar' }, ['textarea', { placeholder: 'Message', rect: { x: 0, y: 700, width: 600, height: 40 } }],
    ['button', { class: 'n-button n-button--disabled', 'aria-label': 'Send', disabled: '' }], ['button', { class: 'n-button', 'aria-label': 'Attach' }]]]);
  const got = D.propose(desc);
  assert.equal(got.sendButton.selector, '[aria-label="Send"]');
});

test('the reply\'s own text, not the turn around it that also holds a header naming the model', () => {
  const desc = page(['body', {}, ['div', { class: 'log' }, ['div', { class: 'turn mine', text: 'hello there', userMessage: true }],
    ['div', { class: 'turn model' }, ['div', { class: 'head', text: 'llama-3-8b' }], ['div', { class: 'body', text: 'Hello! A reply.', grew: 6 }]]],
  ['div', { class: 'bar' }, ['textarea', { class: 'prompt', placeholder: 'Type something', rect: { x: 0, y: 700, width: 600, height: 40 } }], ['button', { text: 'Run ↵', label: 'Run ↵' }]]]);
  const got = D.propose(desc);
  assert.equal(got.source.selector, '.model .body');
  assert.equal(got.source.sure, true);
});
