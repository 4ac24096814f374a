// A small JSON Schema check for editors in the page (the server checks again, fully): types,
// enum and const, properties, required, additionalProperties, items, anyOf, oneOf, allOf,
// lengths, bounds, patterns and local $refs. Unknown keywords pass.

const MAX_DEPTH = 64;
const MAX_ERRORS = 20;

function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function fits(type, v) {
  const t = typeOf(v);
  return type === t || (type === "number" && t === "integer");
}

function resolve(root, ref) {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return {};
  let node = root;
  for (const part of ref.slice(2).split("/")) {
    node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node ?? {};
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function check(schema, v, path, root, out, depth) {
  if (out.length >= MAX_ERRORS || schema === true || schema === undefined) return;
  if (schema === false) return void out.push(`${path}: no value is allowed here`);
  if (depth > MAX_DEPTH) return;
  const at = path || "value";
  if (schema.$ref) check(resolve(root, schema.$ref), v, path, root, out, depth + 1);
  if (schema.type !== undefined) {
    const types = [].concat(schema.type);
    if (!types.some((t) => fits(t, v))) {
      return void out.push(`${at}: expected ${types.join(" or ")}, got ${typeOf(v)}`);
    }
  }
  if (schema.enum && !schema.enum.some((e) => same(e, v))) {
    out.push(`${at}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if ("const" in schema && !same(schema.const, v)) {
    out.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  }
  const sub = (s) => {
    const errs = [];
    check(s, v, path, root, errs, depth + 1);
    return errs;
  };
  if (schema.allOf) { for (const s of schema.allOf) check(s, v, path, root, out, depth + 1); }
  if (schema.anyOf && !schema.anyOf.some((s) => sub(s).length === 0)) {
    out.push(`${at}: matches none of the allowed shapes`);
  }
  if (schema.oneOf && schema.oneOf.filter((s) => sub(s).length === 0).length !== 1) {
    out.push(`${at}: must match exactly one of the allowed shapes`);
  }
  if (typeof v === "string") {
    if (schema.minLength !== undefined && v.length < schema.minLength) {
      out.push(`${at}: shorter than ${schema.minLength}`);
    }
    if (schema.maxLength !== undefined && v.length > schema.maxLength) {
      out.push(`${at}: longer than ${schema.maxLength}`);
    }
    if (schema.pattern) {
      try {
        if (!new RegExp(schema.pattern, "u").test(v)) {
          out.push(`${at}: does not match ${schema.pattern}`);
        }
      } catch {
        // A pattern JavaScript cannot read is left to the server.
      }
    }
  }
  if (typeof v === "number") {
    if (schema.minimum !== undefined && v < schema.minimum) {
      out.push(`${at}: below ${schema.minimum}`);
    }
    if (schema.maximum !== undefined && v > schema.maximum) {
      out.push(`${at}: above ${schema.maximum}`);
    }
    if (typeof schema.exclusiveMinimum === "number" && v <= schema.exclusiveMinimum) {
      out.push(`${at}: must be above ${schema.exclusiveMinimum}`);
    }
    if (typeof schema.exclusiveMaximum === "number" && v >= schema.exclusiveMaximum) {
      out.push(`${at}: must be below ${schema.exclusiveMaximum}`);
    }
  }
  if (Array.isArray(v)) {
    if (schema.minItems !== undefined && v.length < schema.minItems) {
      out.push(`${at}: fewer than ${schema.minItems} items`);
    }
    if (schema.maxItems !== undefined && v.length > schema.maxItems) {
      out.push(`${at}: more than ${schema.maxItems} items`);
    }
    if (schema.items && typeof schema.items === "object" && !Array.isArray(schema.items)) {
      v.forEach((x, i) => check(schema.items, x, `${path}[${i}]`, root, out, depth + 1));
    }
  }
  if (typeOf(v) === "object") {
    const props = schema.properties ?? {};
    for (const name of schema.required ?? []) {
      if (!(name in v)) out.push(`${at}: "${name}" is required`);
    }
    for (const [name, x] of Object.entries(v)) {
      const p = path ? `${path}.${name}` : name;
      if (name in props) check(props[name], x, p, root, out, depth + 1);
      else if (schema.additionalProperties === false) out.push(`${at}: "${name}" is not allowed`);
      else if (typeof schema.additionalProperties === "object") {
        check(schema.additionalProperties, x, p, root, out, depth + 1);
      }
    }
  }
}

/** The problems of `value` against `schema`, as "path: message" lines (none: it fits). */
export function validate(schema, value) {
  const out = [];
  if (schema && typeof schema === "object") check(schema, value, "", schema, out, 0);
  return out;
}

/**
 * Reads the JSON in an editor: { ok, value } or { ok: false, errors } (bad JSON, or what the
 * schema says). Empty text is `undefined` when `allowEmpty`.
 */
export function readJson(text, schema, allowEmpty = false) {
  if (text.trim() === "") {
    return allowEmpty
      ? { ok: true, value: undefined }
      : { ok: false, errors: ["Enter a JSON value"] };
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const errors = [`Not JSON: ${err.message}`];
    const types = [schema?.type].flat();
    if (types.includes("string")) {
      errors.push(`A string is written in double quotes: ${JSON.stringify(text.trim())}`);
    }
    return { ok: false, errors };
  }
  const errors = validate(schema, value);
  return errors.length ? { ok: false, errors } : { ok: true, value };
}
