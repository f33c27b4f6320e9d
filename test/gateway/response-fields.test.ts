// A response field cannot be dropped silently. A field lives in the proto, the service
// that fills it, the gateway mapper that writes its JSON and the route's 200 schema,
// whose serialiser (fast-json-stringify) leaves out, without a word, any property the
// schema does not name. For every REST route this fills every field of the response
// message with a value of its own, writes it through the route's real serialiser, and
// holds three things: every field's value reaches the bytes, every property the mapper
// writes is in the schema, and every property the schema names is written.

import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { COMPONENT_SCHEMAS, type JsonSchema } from "../../src/gateway/json-schemas.js";
import { REST_ROUTES } from "../../src/gateway/rest-routes.js";
import { serialiserFor } from "../support/rest-json.js";

/** Values planted in the message, each found again (as itself or its date-time) in the bytes. */
interface Plant {
  field: string;
  expected: string;
}

let counter = 0;

/**
 * What to leave out, as a message may: nothing; the proto3 optional scalars; or every
 * field with explicit presence, messages too (but the response's own message fields,
 * which every answer has).
 */
type Unset = "nothing" | "scalars" | "all";

function filled(desc: DescMessage, plants: Plant[], path: string, unset: Unset = "nothing"): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  const oneofsSet = new Set<string>();
  for (const field of desc.fields) {
    const leaveOut =
      unset === "all" ? !(field.fieldKind === "message" && !path.includes(".")) : unset === "scalars" && field.fieldKind === "scalar";
    if (leaveOut && field.presence === FeatureSet_FieldPresence.EXPLICIT) continue;
    // One case of each oneof: its fields exclude each other.
    if (field.oneof) {
      if (oneofsSet.has(field.oneof.name)) continue;
      oneofsSet.add(field.oneof.name);
      init[field.oneof.localName] = { case: field.localName, value: value(field, plants, `${path}.${field.name}`) };
      continue;
    }
    init[field.localName] =
      field.fieldKind === "list" ? [value(field, plants, `${path}.${field.name}[]`)] : value(field, plants, `${path}.${field.name}`);
  }
  return init;
}

let unsetting: Unset = "nothing";

function value(field: DescField, plants: Plant[], path: string): unknown {
  const n = ++counter;
  const message = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? field.message : undefined;
  if (message?.typeName === "google.protobuf.Timestamp") {
    const ms = Date.UTC(2026, 0, 1) + n * 60_000;
    plants.push({ field: path, expected: JSON.stringify(new Date(ms).toISOString()) });
    return timestampFromMs(ms);
  }
  if (message) return create(message, filled(message, plants, path, unsetting));
  const enumDesc =
    field.fieldKind === "enum" ? field.enum : field.fieldKind === "list" && field.listKind === "enum" ? field.enum : undefined;
  // An enum is written as a name the mapper chooses; that some name is written is checked below.
  if (enumDesc) return enumDesc.values.find((v) => v.number !== 0)!.number;
  const scalar = field.fieldKind === "scalar" || field.fieldKind === "list" ? field.scalar : undefined;
  switch (scalar) {
    case undefined:
      throw new Error(`${path}: a ${field.fieldKind} field; teach this test its value`);
    case 9: // STRING
      plants.push({ field: path, expected: JSON.stringify(`v${n}`) });
      return `v${n}`;
    case 8: // BOOL: true or false says nothing of which field wrote it; presence is checked below.
      return true;
    case 1: // DOUBLE
    case 2: // FLOAT
      plants.push({ field: path, expected: String(n + 0.5) });
      return n + 0.5;
    default:
      plants.push({ field: path, expected: String(n) });
      return [3, 4, 6, 16, 18].includes(scalar) ? BigInt(n) : n;
  }
}

const byId = new Map(COMPONENT_SCHEMAS.map((schema) => [schema.$id as string, schema]));

/** The schema a $ref names; of an `anyOf` (a nullable object), the alternative that is not null. */
function resolve(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref as string | undefined;
  if (ref) return resolve(byId.get(ref.replace(/#$/, ""))!);
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  return anyOf ? resolve(anyOf.find((alternative) => alternative.type !== "null")!) : schema;
}

/** Every property path a schema names ("a.b[].c"). */
function schemaPaths(schema: JsonSchema, path: string, into: Set<string>): Set<string> {
  const resolved = resolve(schema);
  for (const [name, property] of Object.entries((resolved.properties ?? {}) as Record<string, JsonSchema>)) {
    const at = path ? `${path}.${name}` : name;
    into.add(at);
    const inner = resolve(property);
    if (inner.items) schemaPaths(inner.items as JsonSchema, `${at}[]`, into);
    else if (inner.properties) schemaPaths(inner, at, into);
  }
  return into;
}

/** The properties of `schema` that `value` lacks, at any depth: a null stands for a whole object. */
function missing(value: unknown, schema: JsonSchema, path: string): string[] {
  const resolved = resolve(schema);
  if (value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => missing(item, resolved.items as JsonSchema, `${path}[]`));
  if (typeof value !== "object" || !resolved.properties) return [];
  return Object.entries(resolved.properties as Record<string, JsonSchema>).flatMap(([name, property]) =>
    name in value ? missing((value as Record<string, unknown>)[name], property, `${path}.${name}`) : [`${path}.${name}`],
  );
}

/** Every property path a JSON value has. */
function valuePaths(value: unknown, path: string, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) valuePaths(item, `${path}[]`, into);
  else if (value !== null && typeof value === "object") {
    for (const [name, inner] of Object.entries(value)) {
      // protobuf-es's tag of a message object: never a property of the JSON.
      if (name === "$typeName") continue;
      const at = path ? `${path}.${name}` : name;
      into.add(at);
      valuePaths(inner, at, into);
    }
  }
  return into;
}

describe("every REST answer", () => {
  for (const route of REST_ROUTES) {
    const body = ((route.schema.response as Record<string, JsonSchema>)[200]!.content as Record<string, { schema: JsonSchema }>)[
      "application/json"
    ]!.schema;

    it(`${route.path} (${route.rpc.output.typeName}) writes every field, and its schema names exactly what its mapper writes`, async () => {
      const plants: Plant[] = [];
      const message = create(route.rpc.output, filled(route.rpc.output, plants, route.rpc.output.name));
      const json = route.json(message);
      const bytes = (await serialiserFor(route))(json);

      const lost = plants.filter((plant) => !bytes.includes(plant.expected)).map((plant) => plant.field);
      expect(lost, "fields of the message whose value never reaches the bytes").toEqual([]);

      const written = valuePaths(json, "", new Set());
      const named = schemaPaths(body, "", new Set());
      expect(
        [...written].filter((p) => !named.has(p)),
        "properties the mapper writes that the schema drops",
      ).toEqual([]);
      expect(
        [...named].filter((p) => !written.has(p)),
        "properties the schema names that no mapper writes",
      ).toEqual([]);
    });
  }

  for (const [route, unset] of REST_ROUTES.flatMap((route) => (["scalars", "all"] as const).map((unset) => [route, unset] as const))) {
    it(`${route.path} writes a field the message leaves unset as null (unset: ${unset})`, async () => {
      unsetting = unset;
      const message = create(route.rpc.output, filled(route.rpc.output, [], route.rpc.output.name, unset));
      unsetting = "nothing";
      const body = ((route.schema.response as Record<string, JsonSchema>)[200]!.content as Record<string, { schema: JsonSchema }>)[
        "application/json"
      ]!.schema;
      const written: unknown = JSON.parse((await serialiserFor(route))(route.json(message)));
      expect(missing(written, body, "")).toEqual([]);
    });
  }

  it("plants a value the bytes would lose", async () => {
    // Guards the test itself: a property the schema does not name is left out of the bytes.
    const route = REST_ROUTES[0]!;
    const bytes = (await serialiserFor(route))({
      ...(route.json(create(route.rpc.output, filled(route.rpc.output, [], "x"))) as object),
      unnamed: "lost-v0",
    });
    expect(bytes).not.toContain("lost-v0");
  });
});
