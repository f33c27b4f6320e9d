// The v1 JSON of a response message, derived from its descriptor (protobuf-es
// reflection): a property per field under its JSON name, in field order; an unset
// field with explicit presence as null; 64-bit integers (epoch milliseconds) as JSON
// numbers, never proto3 JSON's strings; Timestamps as ISO 8601 UTC with milliseconds;
// enums as their words (messages/enum-words.ts); repeated fields as arrays, a packed column as
// the message holds it (its NaN is written as null). A wrapper message annotated
// `writtenAs` (rest-annotations.ts) is its one field. Its schema is v1-schema.ts's.
//
// Each message type's writer is built once from its descriptor; writing reads the
// message's own properties (protobuf-es keeps an unset explicit-presence field
// undefined), so no reflection object is made per message.

import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { WORD_TABLES } from "../messages/enum-words.js";
import { dateTime } from "./date-time-json.js";
import { ANNOTATIONS } from "./rest-annotations.js";

// biome-ignore lint/suspicious/noExplicitAny: a field's value, whatever its type; each writer is built for one field's.
type Write = (value: any) => unknown;

interface FieldWriter {
  /** The property's JSON name. */
  name: string;
  /** The message property holding the field. */
  local: string;
  /** Whether the field has explicit presence: unset (undefined), it is written as null. */
  nullable: boolean;
  /** The value as JSON; undefined when it is written as it is. */
  write: Write | undefined;
}

const writers = new Map<DescMessage, Write>();
const building = new Set<DescMessage>();

/** The writer of `desc`'s messages as v1 JSON, built on first use. */
export function v1Json(desc: DescMessage): (message: object) => unknown {
  let writer = writers.get(desc);
  if (!writer) {
    if (building.has(desc)) throw new Error(`${desc.typeName} holds itself: a recursive message has no v1 JSON`);
    building.add(desc);
    writer = messageWriter(desc);
    building.delete(desc);
    writers.set(desc, writer);
  }
  return writer;
}

/**
 * What a route writes as its body: the response message, or, given `field` (as
 * grpc-gateway's response_body), that message field's message, which the response
 * always sets.
 */
export function v1Body(response: DescMessage, field?: string): { desc: DescMessage; json: (message: object) => unknown } {
  if (field === undefined) return { desc: response, json: v1Json(response) };
  const body = response.field[field];
  if (body?.fieldKind !== "message") throw new Error(`${response.typeName} has no message field ${field}`);
  const json = v1Json(body.message);
  return {
    desc: body.message,
    json: (message) => {
      const value = (message as Record<string, object | undefined>)[body.localName];
      if (value === undefined) throw new Error(`${response.typeName} without ${body.name}`);
      return json(value);
    },
  };
}

export function isTimestamp(desc: DescMessage): boolean {
  return desc.typeName === "google.protobuf.Timestamp";
}

function messageWriter(desc: DescMessage): Write {
  if (isTimestamp(desc)) return dateTime;
  const writtenAs = ANNOTATIONS.get(desc)?.writtenAs;
  if (writtenAs) {
    const field = desc.field[writtenAs]!;
    const write = fieldWriter(field) ?? ((value) => value);
    return hasPresence(field) ? (message) => nullOr(message[field.localName], write) : (message) => write(message[field.localName]);
  }
  const fields: FieldWriter[] = desc.fields.map((field) => {
    if (field.oneof) throw new Error(`${desc.typeName}.${field.name}: a oneof field has no v1 JSON`);
    return { name: field.jsonName, local: field.localName, nullable: hasPresence(field), write: fieldWriter(field) };
  });
  return objectWriter(fields);
}

function nullOr(value: unknown, write: Write): unknown {
  return value === undefined ? null : write(value);
}

/**
 * A function that returns one object literal of `fields`, compiled as fast-json-stringify
 * compiles its serialisers: a literal of fixed properties is built several times faster
 * than one filled property by property in a loop shared by every message type. Only
 * the descriptor's names (quoted by JSON.stringify) go into the source; the writers are
 * passed in.
 */
function objectWriter(fields: readonly FieldWriter[]): Write {
  const properties = fields.map(({ name, local, nullable, write }, i) => {
    const value = `message[${JSON.stringify(local)}]`;
    const written = write ? `writers[${i}](${value})` : value;
    return `${JSON.stringify(name)}: ${nullable ? `${value} === undefined ? null : ${written}` : written}`;
  });
  const compile = new Function("writers", `return (message) => ({ ${properties.join(", ")} });`);
  return compile(fields.map((field) => field.write)) as Write;
}

/** How a set field's value is written; undefined when as it is (a string, a number, a bool, a list of them). */
function fieldWriter(field: DescField): Write | undefined {
  switch (field.fieldKind) {
    case "scalar":
      return isLong(field.scalar) ? Number : undefined;
    case "enum":
      return enumWriter(field.enum);
    case "message":
      return v1Json(field.message);
    case "list": {
      if (field.listKind === "scalar") return isLong(field.scalar) ? numbers : undefined;
      const write: Write = field.listKind === "enum" ? enumWriter(field.enum) : v1Json(field.message);
      return (list: readonly unknown[]) => list.map(write);
    }
    case "map":
      throw new Error(`${field.parent.typeName}.${field.name}: a map field has no v1 JSON`);
  }
}

/** A message field, or a scalar or enum declared `optional`: unset, it is undefined in the message. */
function hasPresence(field: DescField): boolean {
  return field.presence === FeatureSet_FieldPresence.EXPLICIT;
}

function enumWriter(desc: DescEnum): Write {
  const table = WORD_TABLES.get(desc);
  if (!table) throw new Error(`${desc.typeName} has no words (messages/enum-words.ts)`);
  const words: string[] = [];
  for (const [word, value] of Object.entries(table)) words[value] = word;
  return (value: number) => words[value] ?? noWord(desc, value);
}

/** UNSPECIFIED, or a value newer than the table: a response never holds one, so writing it is a bug to report. */
function noWord(desc: DescEnum, value: number): never {
  throw new Error(`${desc.typeName} ${value} has no v1 word`);
}

/** 64-bit integers as JSON numbers, into an array filled by push: V8 writes packed arrays faster than holey ones. */
function numbers(list: readonly bigint[]): number[] {
  const json: number[] = [];
  for (const value of list) json.push(Number(value));
  return json;
}

function isLong(scalar: ScalarType): boolean {
  return (
    scalar === ScalarType.INT64 ||
    scalar === ScalarType.UINT64 ||
    scalar === ScalarType.SINT64 ||
    scalar === ScalarType.FIXED64 ||
    scalar === ScalarType.SFIXED64
  );
}
