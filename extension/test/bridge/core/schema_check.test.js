// The exact subset validator (bridge/core/schema_check.js): what it
// implements behaves as JSON Schema 2020-12 says, and a keyword it does not
// implement is refused when the schema is compiled, never ignored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileSchema, validate } from '../../../bridge/core/schema_check.js';

const check = (schema, value) => validate(compileSchema(schema), value).map((v) => `${v.path} ${v.keyword}`);

test('a keyword outside the subset is refused at compile time, naming it and where it is', () => {
  for (const [schema, where] of [
    [{ type: 'object', uniqueItems: true }, '#/uniqueItems'],
    [{ properties: { a: { format: 'email' } } }, '#/properties/a/format'],
    [{ $ref: '#/$defs/x' }, '#/$ref'],
    [{ oneOf: [{ patternProperties: {} }] }, '#/oneOf/0/patternProperties'],
    [{ dependentRequired: {} }, '#/dependentRequired'],
  ]) {
    assert.throws(() => compileSchema(schema), (err) => err.message.startsWith(`${where}: the keyword`), JSON.stringify(schema));
  }
  assert.throws(() => compileSchema({ pattern: '(' }), /not an ECMA-262 regular expression/);
  assert.throws(() => compileSchema({ type: 'int' }), /not a JSON Schema type/);
  assert.throws(() => compileSchema({ maxLength: -1 }), /non-negative integer/);
  assert.doesNotThrow(() => compileSchema({ title: 't', description: 'd', default: 1, examples: [], $comment: 'c' }));
});

const cases = [
  // [what, schema, value, violations]
  ['true accepts anything', true, { a: 1 }, []],
  ['false refuses anything', false, null, [' false']],
  ['integer: 3.0 is an integer', { type: 'integer' }, 3.0, []],
  ['integer: 3.5 is not', { type: 'integer' }, 3.5, [' type']],
  ['number takes an integer', { type: 'number' }, 3, []],
  ['a list of types', { type: ['string', 'null'] }, null, []],
  ['arrays are not objects', { type: 'object' }, [], [' type']],
  ['null is not an object', { type: 'object' }, null, [' type']],
  ['enum compares JSON values', { enum: [{ a: [1, 2] }, 'x'] }, { a: [1, 2] }, []],
  ['enum refuses the rest', { enum: [1, 2] }, '1', [' enum']],
  ['const', { const: { a: 1 } }, { a: 1, b: 2 }, [' const']],
  ['exclusive bounds', { exclusiveMinimum: 0, exclusiveMaximum: 1 }, 1, [' exclusiveMaximum']],
  ['bounds ignore other types', { minimum: 5, maxLength: 1 }, 'ab', [' maxLength']],
  ['lengths count code points, not UTF-16 units', { maxLength: 2 }, '😀😀', []],
  ['… and refuse past them', { minLength: 3 }, '😀😀', [' minLength']],
  ['pattern searches anywhere', { pattern: 'b+' }, 'abbc', []],
  ['pattern is ECMA-262 with u', { pattern: '^\\p{Lu}' }, 'Édith', []],
  ['pattern refuses', { pattern: '^a$' }, 'ab', [' pattern']],
  ['required and additionalProperties', { properties: { a: {} }, required: ['a', 'b'], additionalProperties: false }, { a: 1, c: 2 }, ['/b required', '/c additionalProperties']],
  ['additionalProperties as a schema', { additionalProperties: { type: 'string' } }, { x: 1 }, ['/x type']],
  ['a property name with / and ~ in the path', { properties: { 'a/b~': { type: 'string' } } }, { 'a/b~': 1 }, ['/a~1b~0 type']],
  ['items, at each index', { items: { type: 'integer' } }, [1, 'x', 2.5], ['/1 type', '/2 type']],
  ['allOf gathers every branch', { allOf: [{ minimum: 5 }, { maximum: 1 }] }, 3, [' minimum', ' maximum']],
  ['anyOf passes on one', { anyOf: [{ type: 'string' }, { minimum: 5 }] }, 7, []],
  ['anyOf refuses none, and the closest branch\'s errors follow', { anyOf: [{ type: 'string' }, { minimum: 5 }] }, 1, [' anyOf', ' minimum']],
  ['oneOf refuses two, with no branch\'s errors', { oneOf: [{ minimum: 1 }, { maximum: 5 }] }, 3, [' oneOf']],
  ['the closest branch has the fewest errors', { oneOf: [{ required: ['a', 'b'] }, { required: ['c'] }] }, {}, [' oneOf', '/c required']],
  ['… the first of equals', { anyOf: [{ required: ['a'] }, { required: ['b'] }] }, {}, [' anyOf', '/a required']],
  ['… a const missed is farther than two errors', { oneOf: [{ properties: { k: { const: 'x' } } }, { required: ['a', 'b'] }] }, { k: 'y' }, [' oneOf', '/a required', '/b required']],
  ['… a type missed farther than a const', { anyOf: [{ type: 'string' }, { const: 2 }] }, 1, [' anyOf', ' const']],
  ['… and a type missed deeper counts as one', { anyOf: [{ properties: { a: { type: 'string' } } }, { required: ['b', 'c'] }] }, { a: 1 }, [' anyOf', '/a type']],
  ['a branch inside a branch is explained too', { anyOf: [{ type: 'string' }, { oneOf: [{ required: ['a'] }, { required: ['b', 'c'] }] }] }, {}, [' anyOf', ' oneOf', '/a required']],
  ['a value of the wrong type still meets enum', { type: 'string', enum: ['a'] }, 1, [' type', ' enum']],
  ['not', { not: { type: 'string' } }, 's', [' not']],
  ['properties: false means absent', { properties: { x: false } }, { x: 1 }, ['/x false']],
  ['nothing is checked inside a value of the wrong type', { type: 'object', required: ['a'] }, 'x', [' type']],
];

for (const [what, schema, value, want] of cases) {
  test(`validate: ${what}`, () => assert.deepEqual(check(schema, value), want));
}

test('a failed oneOf names its closest branch and why each other failed, for the model to repair toward', () => {
  const schema = compileSchema({ oneOf: [{ required: ['x', 'y'] }, { title: 'by reference', required: ['ref'] }] });
  assert.deepEqual(validate(schema, { x: 1 }), [
    { path: '', keyword: 'oneOf', message: 'must match exactly one of the 2 oneOf schemas; the closest is #0, whose errors follow; the others fail as #1 ("by reference") at /ref: "ref" is required' },
    { path: '/y', keyword: 'required', message: '"y" is required' },
  ]);
});
