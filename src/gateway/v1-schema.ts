// The JSON Schema of a response message's v1 JSON, derived from its descriptor as
// v1-json.ts derives the JSON itself: a property per field in field order, all
// required; a field with explicit presence nullable (default null); 64-bit integers as
// JSON integers; Timestamps as date-times; enums as their words (messages/enum-words.ts);
// repeated fields as arrays, of a message as references to its component; a singular
// message field inline. The annotations (rest-annotations.ts) add what a descriptor
// cannot say. Fastify compiles these into each answer's serialiser (fast-json-stringify)
// and @fastify/swagger publishes them as /api/v1/openapi.json's components.

import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { WORD_TABLES } from "../messages/enum-words.js";
import { ref, type JsonSchema } from "./json-schema-ref.js";
import { ANNOTATIONS, FIELDS_BY_NAME } from "./rest-annotations.js";
import { isTimestamp } from "./v1-json.js";

/** Every date-time we write: ISO 8601 UTC with milliseconds, as Date.toISOString() does. */
const DATE_TIME: JsonSchema = { type: "string", format: "date-time", maxLength: 24, example: "2026-07-04T13:05:00.000Z" };

/** The message's component name: its own, or the one its annotation gives. */
export function componentName(desc: DescMessage): string {
  return ANNOTATIONS.get(desc)?.component ?? desc.name;
}

/**
 * The component schemas of `bodies` and of every message they hold in a list, each
 * after those it refers to, each once.
 */
export function messageComponents(bodies: readonly DescMessage[]): JsonSchema[] {
  const components = new Map<DescMessage, JsonSchema>();
  const add = (desc: DescMessage) => {
    if (components.has(desc)) return;
    for (const inner of listedMessages(desc)) add(inner);
    components.set(desc, { $id: componentName(desc), ...objectSchema(desc) });
  };
  for (const body of bodies) add(body);
  return [...components.values()];
}

/** The messages of `desc`'s list fields, also those of its inline (singular) message fields. */
function listedMessages(desc: DescMessage): DescMessage[] {
  return desc.fields.flatMap((field) => {
    if (field.fieldKind === "list" && field.listKind === "message") return [field.message];
    if (field.fieldKind === "message" && !isTimestamp(field.message)) return listedMessages(field.message);
    return [];
  });
}

function objectSchema(desc: DescMessage): JsonSchema {
  const annotation = ANNOTATIONS.get(desc);
  const properties: Record<string, JsonSchema> = {};
  for (const field of desc.fields) {
    if (field.oneof) throw new Error(`${desc.typeName}.${field.name}: a oneof field has no v1 JSON`);
    const own = annotation?.fields?.[field.localName];
    const schema = annotated(annotated(fieldSchema(field), FIELDS_BY_NAME[field.localName]), own);
    properties[field.jsonName] = isNullable(schema) ? { ...schema, default: null } : schema;
  }
  return {
    type: "object",
    required: Object.keys(properties),
    properties,
    ...(annotation?.description ? { description: annotation.description } : {}),
  };
}

/** The derived schema of a field, before its annotations. */
function fieldSchema(field: DescField): JsonSchema {
  const explicit = field.presence === FeatureSet_FieldPresence.EXPLICIT;
  switch (field.fieldKind) {
    case "scalar":
      return orNull(scalarSchema(field.scalar), explicit);
    case "enum":
      return orNull(enumSchema(field.enum), explicit);
    case "message":
      // Inline, so that a value and null are told apart by type: an `anyOf` with a
      // $ref would be chosen by validation, before a null default applies.
      return orNull(
        messageSchema(field.message, (inner) => objectSchema(inner)),
        true,
      );
    case "list":
      return {
        type: "array",
        items:
          field.listKind === "scalar"
            ? scalarSchema(field.scalar)
            : field.listKind === "enum"
              ? enumSchema(field.enum)
              : messageSchema(field.message, (inner) => ref(componentName(inner))),
      };
    case "map":
      throw new Error(`${field.parent.typeName}.${field.name}: a map field has no v1 JSON`);
  }
}

/** A Timestamp's date-time, a wrapper's one field, or the message itself as `write` puts it. */
function messageSchema(desc: DescMessage, write: (desc: DescMessage) => JsonSchema): JsonSchema {
  if (isTimestamp(desc)) return DATE_TIME;
  const writtenAs = ANNOTATIONS.get(desc)?.writtenAs;
  if (writtenAs) return annotated(fieldSchema(desc.field[writtenAs]!), ANNOTATIONS.get(desc)?.fields?.[writtenAs]);
  return write(desc);
}

function scalarSchema(scalar: ScalarType): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
      return { type: "number", format: "double" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32", minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "int64", minimum: 0, maximum: 2 ** 32 - 1 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      // Written as JSON numbers (v1-json.ts): exact within these bounds.
      return {
        type: "integer",
        format: "int64",
        minimum: scalar === ScalarType.UINT64 || scalar === ScalarType.FIXED64 ? 0 : -Number.MAX_SAFE_INTEGER,
        maximum: Number.MAX_SAFE_INTEGER,
      };
    case ScalarType.BYTES:
      throw new Error("a bytes field has no v1 JSON");
  }
}

/** The enum's words in the order of its values; UNSPECIFIED, which has none, is never sent. */
export function enumSchema(desc: DescEnum): JsonSchema {
  const table = WORD_TABLES.get(desc);
  if (!table) throw new Error(`${desc.typeName} has no words (messages/enum-words.ts)`);
  const words = desc.values.flatMap((value) => Object.keys(table).filter((word) => table[word] === value.number));
  return { type: "string", enum: words };
}

/** `schema` with an annotation's keywords: on an array, `items` adds to the items' own. */
function annotated(schema: JsonSchema, annotation: JsonSchema | undefined): JsonSchema {
  if (!annotation) return schema;
  const { items, ...keywords } = annotation;
  return { ...schema, ...keywords, ...(items ? { items: { ...(schema.items as JsonSchema), ...(items as JsonSchema) } } : {}) };
}

/** The schema or null; an enum's words take null among them, or `enum` alone would refuse it. */
function orNull(schema: JsonSchema, nullable: boolean): JsonSchema {
  if (!nullable) return schema;
  return { ...schema, type: [schema.type, "null"], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
}

function isNullable(schema: JsonSchema): boolean {
  return Array.isArray(schema.type) && schema.type.includes("null");
}
