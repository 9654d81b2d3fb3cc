// A small JSON Schema checker for desktop profiles: when the person saves a
// profile, each action's arguments (filled with sample values) are checked
// against the input schema the host lists for the tool, so a mapping that
// names a missing argument or a wrong type is refused in Settings rather
// than at the first step of a task. The host validates every real call in
// full (its own runtime/schema, docs/validation.md); this covers the keywords
// tool schemas use:
// type, enum, const, required, properties, additionalProperties, items,
// min/maxItems, minimum/maximum, min/maxLength, pattern, local $ref, oneOf,
// anyOf, allOf. Unknown keywords pass. Pure module.

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeFits(want, v) {
  const t = typeOf(v);
  return want === t || (want === 'number' && t === 'integer');
}

function resolve(root, ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return null;
  let node = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    node = node?.[decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))];
  }
  return node && typeof node === 'object' ? node : null;
}

function check(schema, v, path, root, out, depth) {
  if (!schema || typeof schema !== 'object' || depth > 32) return;
  if (schema.$ref) {
    const target = resolve(root, schema.$ref);
    if (!target) out.push(`${path}: the schema's $ref ${schema.$ref} cannot be resolved`);
    else check(target, v, path, root, out, depth + 1);
  }
  if (schema.type !== undefined) {
    const types = [].concat(schema.type);
    if (!types.some((t) => typeFits(t, v))) {
      out.push(`${path}: is ${typeOf(v)}, the tool wants ${types.join(' or ')}`);
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) out.push(`${path}: ${JSON.stringify(v)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (Object.hasOwn(schema, 'const') && JSON.stringify(schema.const) !== JSON.stringify(v)) out.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) out.push(`${path}: ${v} is below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && v > schema.maximum) out.push(`${path}: ${v} is above ${schema.maximum}`);
  }
  if (typeof v === 'string') {
    if (typeof schema.minLength === 'number' && v.length < schema.minLength) out.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && v.length > schema.maxLength) out.push(`${path}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string') {
      let re = null;
      try { re = new RegExp(schema.pattern, 'u'); } catch { /* a pattern we cannot read is the host's to judge */ }
      if (re && !re.test(v)) out.push(`${path}: ${JSON.stringify(v)} does not match ${schema.pattern}`);
    }
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === 'number' && v.length < schema.minItems) out.push(`${path}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && v.length > schema.maxItems) out.push(`${path}: more than ${schema.maxItems} items`);
    if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) v.forEach((item, i) => check(schema.items, item, `${path}[${i}]`, root, out, depth + 1));
  }
  if (typeOf(v) === 'object') {
    const props = schema.properties || {};
    for (const name of schema.required || []) if (!Object.hasOwn(v, name)) out.push(`${path}: the tool requires "${name}"`);
    for (const [k, item] of Object.entries(v)) {
      if (Object.hasOwn(props, k)) check(props[k], item, `${path}.${k}`, root, out, depth + 1);
      else if (schema.additionalProperties === false) out.push(`${path}: the tool takes no argument "${k}"`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') check(schema.additionalProperties, item, `${path}.${k}`, root, out, depth + 1);
    }
  }
  for (const s of schema.allOf || []) check(s, v, path, root, out, depth + 1);
  for (const key of ['oneOf', 'anyOf']) {
    const options = schema[key];
    if (!Array.isArray(options) || !options.length) continue;
    const fits = options.filter((s) => {
      const sub = [];
      check(s, v, path, root, sub, depth + 1);
      return sub.length === 0;
    }).length;
    if (key === 'anyOf' ? fits === 0 : fits !== 1) out.push(`${path}: fits ${fits} of the ${options.length} forms the tool accepts (${key})`);
  }
}

/**
 * The ways value breaks schema, as short lines ("$.coordinate: is string,
 * the tool wants array"); [] when it fits.
 * @param {object} schema a tool's inputSchema
 * @param {any} value
 * @returns {string[]}
 */
export function schemaProblems(schema, value) {
  const out = [];
  check(schema, value, '$', schema, out, 0);
  return out;
}
