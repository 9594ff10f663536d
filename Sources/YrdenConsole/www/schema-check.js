// Checks a value against the parts of a JSON Schema that tools' output schemas use (type, required,
// properties, items, enum), so the console can say whether a tool's structuredContent matches what the tool
// declared. Not a full validator: keywords it does not know pass.

const TYPES = {
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: Number.isInteger,
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
};

/** The problems of `value` against `schema`, each as "path: what is wrong"; empty when it matches. */
export function schemaProblems(value, schema, path = '$', problems = [], depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 32 || problems.length >= 20) return problems;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length && !types.some((t) => TYPES[t]?.(value) ?? true)) {
    problems.push(`${path}: expected ${types.join(' or ')}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`);
    return problems;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    problems.push(`${path}: not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (TYPES.object(value)) {
    for (const key of schema.required || []) {
      if (!(key in value)) problems.push(`${path}.${key}: required but missing`);
    }
    for (const [key, sub] of Object.entries(schema.properties || {})) {
      if (key in value) schemaProblems(value[key], sub, `${path}.${key}`, problems, depth + 1);
    }
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    value.forEach((item, index) => schemaProblems(item, schema.items, `${path}[${index}]`, problems, depth + 1));
  }
  return problems;
}
