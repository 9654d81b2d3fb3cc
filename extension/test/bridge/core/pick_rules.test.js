// Pick's rules (bridge/core/pick_rules.js): which attributes and classes make
// selectors that keep working, and how the assistant's messages are told
// apart from the person's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as P from '../../../bridge/core/pick_rules.js';


test('classes: hashed CSS-module names give their stem, generated ones nothing, plain ones themselves', () => {
  const table = [
    ['home_chat-message__rd8Hs', '[class*="home_chat-message__"]'],
    ['chat-message__x8Fq2', '[class*="chat-message__"]'],
    ['assistant', '.assistant'],
    ['markdown-body', '.markdown-body'],
    ['css-1q2w3e4', null],
    ['sc-bdVaJa', null],
    ['msg-12345', null],
    ['a1b2c3', null],
    ['has space', null],
  ];
  for (const [cls, want] of table) assert.equal(P.classFeature(cls)?.css ?? null, want, cls);
});

test('generated values are never part of a selector', () => {
  for (const v of ['conversation-turn-123', '3f2a9c1e-77aa-4b1e-9c3d-0a1b2c3d4e5f', 'msg_01HZXK9ABCDEFGHJK', 'x'.repeat(61)]) assert.equal(P.isGenerated(v), true, v);
  for (const v of ['assistant', 'send-button', 'Send message', 'turn-3']) assert.equal(P.isGenerated(v), false, v);
});

test('features: stable ones, best first; a data-* value unique to each message is kept as the attribute alone', () => {
  const el = { tag: 'div', id: 'msg-88123', classes: ['home_chat-message__rd8Hs', 'css-9x8y7z'], attrs: { 'data-role': 'assistant', 'data-id': 'a', role: 'article' } };
  const peers = [el, { tag: 'div', attrs: { 'data-role': 'assistant', 'data-id': 'b' } }, { tag: 'div', attrs: { 'data-role': 'user', 'data-id': 'c' } }];
  const css = P.features(el, peers).map((f) => f.css);
  assert.equal(css[0], '[data-role="assistant"]', 'a role word ranks first');
  assert.ok(css.includes('[data-id]') && !css.includes('[data-id="a"]'), css.join(' '));
  assert.ok(css.includes('[class*="home_chat-message__"]'));
  assert.ok(!css.some((c) => c.includes('msg-88123') || c.includes('css-9x8y7z')), css.join(' '));
  assert.equal(css.at(-1), 'div');
});

test('apart: a feature only the assistant\'s messages have, else a shared stem without the person\'s', () => {
  const msg = (...classes) => ({ tag: 'div', classes, attrs: {} });
  const positive = P.apart(msg('message', 'assistant'), [msg('message', 'assistant')], [msg('message', 'user')]);
  assert.equal(positive[0].css, '.assistant');
  const stem = P.apart(msg('home_chat-message__rd8Hs'), [msg('home_chat-message__rd8Hs')], [msg('home_chat-message__rd8Hs', 'home_chat-message-user__Zz81q')]);
  assert.equal(stem[0].css, '[class*="home_chat-message__"]:not([class*="home_chat-message-user__"])');
  const alone = P.apart(msg('turn'), [msg('turn')], []);
  assert.deepEqual(alone.map((f) => f.css), ['.turn', 'div']);
});

test('scores: matching several messages, and fewer than all on the page, beat a unique match', () => {
  const several = P.score({ rank: 50, turns: 7, total: 14, depth: 1 });
  const all = P.score({ rank: 50, turns: 14, total: 14, depth: 1 });
  const one = P.score({ rank: 50, turns: 1, total: 14, depth: 0 });
  assert.ok(several > all && all > one, `${several} ${all} ${one}`);
  assert.equal(P.score({ rank: 90, turns: 0, total: 3, depth: 0 }), -Infinity);
});

test('classes and values that say a state never name an element: they come and go while the page is used', () => {
  const state = ['n-button--disabled', 'is-loading', 'active', 'Mui-disabled', 'ant-btn-loading', 'btn_active', 'is-open', 'hidden', 'focus-visible', 'selected'];
  const stable = ['n-button', 'send-button', 'composer-send', 'message-actions', 'chat-input', 'activity-log', 'loader-icon', 'openai-logo', 'is-user'];
  for (const cls of state) assert.equal(P.classFeature(cls), null, cls);
  for (const cls of stable) assert.notEqual(P.classFeature(cls), null, cls);
  const button = { tag: 'button', classes: ['n-button', 'n-button--primary-type', 'n-button--disabled'], attrs: { 'data-state': 'closed', 'data-kind': 'send' } };
  const css = P.features(button).map((f) => f.css);
  assert.ok(!css.some((c) => /disabled|closed/.test(c)), css.join(' '));
  assert.ok(css.includes('[data-state]') && css.includes('[data-kind="send"]') && css.includes('.n-button'), css.join(' '));
});
