// A form generated from a JSON Schema (a tool's inputSchema): strings, numbers, integers, booleans,
// enums, arrays and nested objects; anything else is a JSON textarea. The whole form can switch to raw
// JSON, for schemas the generator cannot express.
import { formatJSON, h, idFor } from './dom.js';

export class InputError extends Error {
  constructor(message, input) {
    super(message);
    this.input = input;
  }
}

let formCount = 0;

/** buildSchemaForm(schema) → {el, read()}; read() throws InputError naming the input at fault. */
export function buildSchemaForm(schema, { label = 'Arguments' } = {}) {
  const prefix = `sf${++formCount}`;
  const root = objectField(schema?.type === 'object' || schema?.properties ? schema : { type: 'object' }, prefix, true);
  const raw = h('textarea', { class: 'raw-json', rows: 8, spellcheck: false, id: `${prefix}-raw`, 'aria-label': `${label} as JSON` });
  const rawPart = h('div', { class: 'raw-part', hidden: true }, raw);
  const toggle = h('input', { type: 'checkbox', id: `${prefix}-raw-toggle` });
  toggle.addEventListener('change', () => {
    if (toggle.checked) {
      try {
        raw.value = formatJSON(root.read() ?? {});
      } catch {
        raw.value = '{}';
      }
    }
    root.el.hidden = toggle.checked;
    rawPart.hidden = !toggle.checked;
  });
  const el = h('div', { class: 'schema-form' },
    h('label', { class: 'checkbox raw-toggle', for: toggle.id }, toggle, 'Edit as JSON'),
    root.el, rawPart);
  return {
    el,
    read() {
      if (!toggle.checked) return root.read() ?? {};
      try {
        return JSON.parse(raw.value || '{}');
      } catch (error) {
        throw new InputError(`Not valid JSON: ${error.message}`, raw);
      }
    },
  };
}

function fieldFor(schema, id, required) {
  schema = schema || {};
  if (schema.$ref || schema.anyOf || schema.oneOf || schema.allOf) return jsonField(schema, id, required);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (Array.isArray(schema.enum)) return enumField(schema, id, required);
  if (type === 'string') return stringField(schema, id, required);
  if (type === 'number' || type === 'integer') return numberField(schema, id, required, type === 'integer');
  if (type === 'boolean') return booleanField(schema, id);
  if (type === 'array') return arrayField(schema, id, required);
  if (type === 'object' || schema.properties) return objectField(schema, id, required);
  return jsonField(schema, id, required);
}

function objectField(schema, id, required) {
  const props = schema.properties || {};
  const requiredNames = new Set(schema.required || []);
  const children = Object.entries(props).map(([name, sub]) => {
    const childId = idFor(id, name);
    const field = fieldFor(sub, childId, requiredNames.has(name));
    return { name, field, wrapper: labelled(name, sub, childId, requiredNames.has(name), field) };
  });
  const extra = schema.additionalProperties && !Object.keys(props).length
    ? jsonField({ type: 'object', description: 'Any properties, as JSON.' }, idFor(id, 'extra'), required)
    : null;
  const el = h('div', { class: 'object-field' }, children.map((c) => c.wrapper), extra?.el);
  return {
    el,
    group: true,
    read() {
      const out = extra ? extra.read() ?? {} : {};
      for (const { name, field } of children) {
        const value = field.read();
        if (value !== undefined) out[name] = value;
      }
      return Object.keys(out).length || required ? out : undefined;
    },
  };
}

function labelled(name, schema, id, required, field) {
  const descId = schema?.description ? `${id}-desc` : undefined;
  if (descId) field.input?.setAttribute('aria-describedby', descId);
  const title = schema?.title && schema.title !== name ? ` (${schema.title})` : '';
  const text = [name, title, required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null];
  if (field.group) {
    return h('fieldset', { class: 'field nested' },
      h('legend', {}, text, required ? h('span', { class: 'visually-hidden' }, ' (required)') : null),
      descId && h('p', { class: 'hint', id: descId }, schema.description), field.el);
  }
  return h('div', { class: 'field' },
    h('label', { for: id }, text, required ? h('span', { class: 'visually-hidden' }, ' (required)') : null),
    field.el, descId && h('p', { class: 'hint', id: descId }, schema.description));
}

function stringField(schema, id, required) {
  const long = (schema.maxLength ?? 0) > 200 || schema.format === 'textarea';
  const input = long
    ? h('textarea', { id, rows: 4 }, schema.default ?? '')
    : h('input', { id, type: schema.format === 'uri' ? 'url' : 'text', value: schema.default ?? '', required });
  return {
    el: input,
    input,
    read: () => (input.value === '' && !required ? undefined : input.value),
  };
}

function numberField(schema, id, required, integer) {
  const input = h('input', {
    id, type: 'number', inputMode: integer ? 'numeric' : 'decimal', step: integer ? '1' : 'any',
    min: schema.minimum, max: schema.maximum, value: schema.default ?? '', required,
  });
  return {
    el: input,
    input,
    read() {
      if (input.value === '') {
        if (required) throw new InputError('A number is required.', input);
        return undefined;
      }
      const n = Number(input.value);
      if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
        throw new InputError(integer ? 'An integer is required.' : 'A number is required.', input);
      }
      return n;
    },
  };
}

function booleanField(schema, id) {
  const input = h('input', { id, type: 'checkbox', checked: schema.default === true });
  return { el: input, input, read: () => input.checked };
}

function enumField(schema, id, required) {
  const input = h('select', { id },
    !required && h('option', { value: '' }, '(none)'),
    schema.enum.map((v, i) => h('option', { value: String(i), selected: v === schema.default }, JSON.stringify(v))));
  return {
    el: input,
    input,
    read: () => (input.value === '' ? undefined : schema.enum[Number(input.value)]),
  };
}

function arrayField(schema, id, required) {
  const itemSchema = schema.items && !Array.isArray(schema.items) ? schema.items : {};
  const items = [];
  const list = h('ol', { class: 'array-items' });
  let counter = 0;
  const add = () => {
    const itemId = idFor(id, 'item', ++counter);
    const field = fieldFor(itemSchema, itemId, true);
    const row = h('li', {},
      h('label', { class: 'visually-hidden', for: itemId }, `Item`),
      field.el,
      h('button', { type: 'button', class: 'small', 'aria-label': 'Remove item', onclick: () => {
        items.splice(items.indexOf(entry), 1);
        row.remove();
      } }, 'Remove'));
    const entry = { field, row };
    items.push(entry);
    list.append(row);
    (field.input || row.querySelector('input, select, textarea'))?.focus();
  };
  const el = h('div', { class: 'array-field', id }, list,
    h('button', { type: 'button', class: 'small', onclick: add }, 'Add item'));
  return {
    el,
    group: true,
    read() {
      const values = items.map((i) => i.field.read()).filter((v) => v !== undefined);
      return values.length || required ? values : undefined;
    },
  };
}

function jsonField(schema, id, required) {
  const input = h('textarea', { id, rows: 3, class: 'json-field', spellcheck: false, placeholder: 'JSON' },
    schema.default !== undefined ? formatJSON(schema.default) : '');
  return {
    el: input,
    input,
    read() {
      if (!input.value.trim()) return required ? null : undefined;
      try {
        return JSON.parse(input.value);
      } catch (error) {
        throw new InputError(`Not valid JSON: ${error.message}`, input);
      }
    },
  };
}
