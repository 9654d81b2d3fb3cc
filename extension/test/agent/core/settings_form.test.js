// The Settings form's Save uses Run's rules: every field that would block a
// run is reported at that field, and a form Run would refuse is never valid.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, needsSetup, settingsErrors, validateTask } from '../../../agent/core/config_validation.js';

const good = { ...DEFAULTS, apiUrl: 'https://api.example.com/v1', model: 'ui-venus' };

test('a complete form has no errors and Run accepts it', () => {
  assert.deepEqual(settingsErrors(good), {});
  assert.equal(validateTask({ settings: good }).ok, true);
});

const cases = [
  ['an empty API URL', { apiUrl: '' }, 'apiUrl', /^The API URL is empty\.$/],
  ['plain http to another machine', { apiUrl: 'http://example.com/v1' }, 'apiUrl', /Plain http:\/\/ is allowed only/],
  ['a URL that is not one', { apiUrl: 'example.com' }, 'apiUrl', /not a valid URL/],
  ['no model', { model: '  ' }, 'model', /model that accepts images/],
  ['steps out of range', { maxSteps: 0 }, 'maxSteps', /Maximum steps must be a number from 1 to 200/],
  ['fractional steps', { maxSteps: 2.5 }, 'maxSteps', /whole number/],
  ['an empty number field', { temperature: NaN }, 'temperature', /Temperature must be a number/],
];
for (const [name, change, field, message] of cases) {
  test(`${name} is an error at ${field}, and Run refuses it at the same field`, () => {
    const s = { ...good, ...change };
    const errors = settingsErrors(s);
    assert.deepEqual(Object.keys(errors), [field]);
    assert.match(errors[field], message);
    const v = validateTask({ settings: s });
    assert.equal(v.ok, false);
    assert.equal(v.field, field);
  });
}

test('several wrong fields are all reported at once', () => {
  assert.deepEqual(Object.keys(settingsErrors({ ...good, apiUrl: '', model: '', retryMaxMs: -1 })).sort(), ['apiUrl', 'model', 'retryMaxMs']);
});

test('the setup card is for a panel with neither API URL nor model', () => {
  assert.equal(needsSetup(DEFAULTS), true);
  assert.equal(needsSetup({ ...DEFAULTS, apiUrl: 'https://x.example/v1' }), false);
  assert.equal(needsSetup({ ...DEFAULTS, model: 'm' }), false);
});
