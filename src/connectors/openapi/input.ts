/**
 * A tool's arguments: one object holding every parameter of the operation
 * and its request body.
 *
 * Property names: the request body is `body`. Parameters keep their own
 * names, taken in the order path, query, header, cookie; a name already
 * taken (by `body` or an earlier parameter) gets its location in front
 * (`query_id`, `header_petId`, `cookie_session`), then `_2`, `_3`, … if
 * even that is taken. Header names keep their spelling (`X-Request-Id`).
 *
 * @module
 */
import type { OpenApiOperation, OpenApiParameter, ParameterLocation } from "./operations.ts";

/** The argument that carries the request body. */
export const BODY_PROPERTY = "body";

/** A parameter and the argument property that carries it. */
export interface InputField {
  property: string;
  parameter: OpenApiParameter;
}

/** Where each argument goes, and the (still OpenAPI) schema of the arguments. */
export interface InputLayout {
  fields: InputField[];
  /** The raw input schema; its `$ref`s still point into the document. */
  schema: Record<string, unknown>;
}

const LOCATION_ORDER: readonly ParameterLocation[] = ["path", "query", "header", "cookie"];

function propertySchema(parameter: OpenApiParameter): Record<string, unknown> {
  const base: Record<string, unknown> =
    typeof parameter.schema === "object" && parameter.schema !== null
      ? { ...parameter.schema as Record<string, unknown> }
      : parameter.schema === false
      ? { not: {} }
      : {};
  if (parameter.description !== undefined && base.description === undefined) {
    base.description = parameter.description;
  }
  if (parameter.deprecated) base.deprecated = true;
  return base;
}

/**
 * The argument properties of an operation.
 *
 * @example
 * ```ts
 * import { layoutInput } from "./input.ts";
 * const p = (name: string, where: "path" | "header") => ({
 *   name, in: where, required: true, schema: { type: "string" }, style: "simple", explode: false, json: false,
 * });
 * const layout = layoutInput({
 *   method: "get", path: "/pets/{petId}", deprecated: false, tags: [], raw: { operation: {}, pathItem: {} },
 *   parameters: [p("petId", "path"), p("petId", "header")],
 * });
 * console.assert(layout.fields.map((f) => f.property).join() === "petId,header_petId");
 * ```
 */
export function layoutInput(op: OpenApiOperation): InputLayout {
  const taken = new Set<string>(op.body ? [BODY_PROPERTY] : []);
  const fields: InputField[] = [];
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const location of LOCATION_ORDER) {
    for (const parameter of op.parameters.filter((p) => p.in === location)) {
      let property = parameter.name;
      if (taken.has(property)) property = `${location}_${parameter.name}`;
      for (let n = 2; taken.has(property); n++) property = `${location}_${parameter.name}_${n}`;
      taken.add(property);
      fields.push({ property, parameter });
      properties[property] = propertySchema(parameter);
      if (parameter.required) required.push(property);
    }
  }
  if (op.body) {
    const body = typeof op.body.schema === "object" && op.body.schema !== null
      ? { ...op.body.schema as Record<string, unknown> }
      : {};
    if (op.body.description !== undefined && body.description === undefined) {
      body.description = op.body.description;
    }
    properties[BODY_PROPERTY] = body;
    if (op.body.required) required.push(BODY_PROPERTY);
  }
  const schema: Record<string, unknown> = {
    type: "object",
    properties,
    additionalProperties: false,
  };
  if (required.length > 0) schema.required = required;
  return { fields, schema };
}
