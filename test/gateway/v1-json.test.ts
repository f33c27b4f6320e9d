// The v1 JSON of every REST answer is derived from its message's descriptor: checked
// on random messages against protobuf-es's own reflection-based proto3 JSON (toJson),
// which differs only where the v1 spec does (int64 as numbers, Timestamps always with
// milliseconds, enums as words, unset fields as null, a wrapper as its field), and
// against the bytes the route writes with the derived schema.

import { create, toJson, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, timestampFromMs } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { GetRaceLiveResponseSchema, RaceLiveSchema } from "../../gen/racing/v1/race_live_pb.js";
import { WORD_TABLES } from "../../src/messages/enum-words.js";
import { ANNOTATIONS } from "../../src/gateway/rest-annotations.js";
import { REST_ROUTES, STREAM_ROUTES } from "../../src/gateway/rest-routes.js";
import { serialiserFor } from "../support/rest-json.js";

const hasPresence = (field: DescField) => field.presence === FeatureSet_FieldPresence.EXPLICIT;
/** A Timestamp the annotations say the message always sets (its schema has no null). */
const alwaysSet = (field: DescField) => ANNOTATIONS.get(field.parent)?.fields?.[field.localName]?.type === "string";

/** Any message of `desc`: each field with presence set or not (but those always set), lists of 0 to 3, NaN only in packed doubles. */
function messageOf(desc: DescMessage): fc.Arbitrary<object> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of desc.fields) {
    const value = anyValue(field);
    fields[field.localName] =
      field.fieldKind === "list"
        ? fc.array(value, { maxLength: 3 })
        : hasPresence(field) && !alwaysSet(field)
          ? fc.option(value, { nil: undefined })
          : value;
  }
  return fc.record(fields).map((init) => create(desc, init));
}

function anyValue(field: DescField): fc.Arbitrary<unknown> {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
  if (kind === "message") {
    const message = (field as { message: DescMessage }).message;
    // Track times are whole milliseconds, as every time the API writes.
    if (message.typeName === "google.protobuf.Timestamp") return fc.integer({ min: 0, max: 4_102_444_800_000 }).map(timestampFromMs);
    return messageOf(message);
  }
  if (kind === "enum") {
    const values = (field as { enum: { values: { number: number }[] } }).enum.values.filter((value) => value.number !== 0);
    return fc.constantFrom(...values.map((value) => value.number));
  }
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0));
  switch ((field as { scalar: number }).scalar) {
    case 9: // STRING
      return fc.string();
    case 8: // BOOL
      return fc.boolean();
    case 1: // DOUBLE: a packed column says "not reported" with NaN
      return field.fieldKind === "list" ? fc.oneof(finite, fc.constant(Number.NaN)) : finite;
    case 5: // INT32
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 3: // INT64
      return fc.bigInt({ min: BigInt(-Number.MAX_SAFE_INTEGER), max: BigInt(Number.MAX_SAFE_INTEGER) });
    default:
      throw new Error(`${field.parent.typeName}.${field.name}: teach this test its values`);
  }
}

/** What the v1 JSON of a message should be, from protobuf-es's proto3 JSON of it. */
function expected(desc: DescMessage, json: JsonObject): unknown {
  const writtenAs = ANNOTATIONS.get(desc)?.writtenAs;
  if (writtenAs) return expectedField(desc.field[writtenAs]!, json[desc.field[writtenAs]!.jsonName]);
  return Object.fromEntries(desc.fields.map((field) => [field.jsonName, expectedField(field, json[field.jsonName])]));
}

function expectedField(field: DescField, json: JsonValue | undefined): unknown {
  // proto3 JSON leaves an unset field out; v1 writes null.
  if (json === undefined) return null;
  if (field.fieldKind === "list") return (json as JsonValue[]).map((item) => expectedValue(field, item));
  return expectedValue(field, json);
}

function expectedValue(field: DescField, json: JsonValue): unknown {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
  if (kind === "message") {
    const message = (field as { message: DescMessage }).message;
    // proto3 JSON writes 0, 3, 6 or 9 fraction digits; v1 always 3.
    if (message.typeName === "google.protobuf.Timestamp") return new Date(json as string).toISOString();
    return expected(message, json as JsonObject);
  }
  if (kind === "enum") {
    const desc = (field as { enum: { values: { name: string; number: number }[] } }).enum;
    const number = desc.values.find((value) => value.name === json)!.number;
    const table = WORD_TABLES.get(field.enum!)!;
    return Object.keys(table).find((word) => table[word] === number);
  }
  // int64 is a string in proto3 JSON, a number in v1; NaN is "NaN".
  if (typeof json === "string" && (field.scalar === 3 || json === "NaN")) return Number(json);
  return json;
}

/** The JSON as its bytes read back: a packed column's NaN is written as null. */
const asWritten = (json: unknown): unknown =>
  JSON.parse(JSON.stringify(json, (_key, value) => (typeof value === "number" && Number.isNaN(value) ? null : value)));

describe("the v1 JSON of every REST answer", () => {
  for (const route of REST_ROUTES) {
    it(`${route.path}: is protobuf-es's JSON of the message but where v1 differs, and the route writes exactly it`, async () => {
      const write = route.stringify ?? (await serialiserFor(route));
      await fc.assert(
        fc.asyncProperty(messageOf(route.body), async (body) => {
          // A wrapper response (responseBody) holds the body in its one field.
          const response =
            route.body === route.rpc.output ? body : create(route.rpc.output, { [route.rpc.output.fields[0]!.localName]: body });
          const json = route.json(response);
          expect(json).toEqual(expected(route.body, toJson(route.body, body as never, { alwaysEmitImplicit: true }) as JsonObject));
          expect(JSON.parse(write(json))).toEqual(asWritten(json));
        }),
        { seed: 20261126, numRuns: 60 },
      );
    });
  }

  it("refuses a value no word spells (UNSPECIFIED, which a response never holds) rather than guess one", () => {
    const route = REST_ROUTES.find((candidate) => candidate.body === RaceLiveSchema)!;
    const live = create(GetRaceLiveResponseSchema, {
      raceLive: { startGroups: [{ state: StartGroupState.UNSPECIFIED }] },
    });
    expect(() => route.json(live)).toThrow("racing.v1.StartGroupState 0 has no v1 word");
    expect(() => route.json(create(GetRaceLiveResponseSchema))).toThrow("GetRaceLiveResponse without race_live");
  });
});

describe("the words of an enum", () => {
  it("spell its values' names, one word for each value but UNSPECIFIED", () => {
    for (const [desc, table] of WORD_TABLES) {
      const named = desc.values.filter((value) => value.number !== 0);
      // LEAD_CHANGE is leadChange, SCHEDULED is Scheduled, PROVISIONAL is provisional.
      const spelt = Object.entries(table).map(([word, number]) => [word.toLowerCase(), number]);
      expect(spelt.sort(), desc.typeName).toEqual(
        named.map((value) => [value.localName.replaceAll("_", "").toLowerCase(), value.number]).sort(),
      );
    }
  });
});

describe("the annotations", () => {
  it("are each of a message some answer holds", () => {
    const held = new Set<DescMessage>();
    const hold = (desc: DescMessage) => {
      if (held.has(desc)) return;
      held.add(desc);
      for (const field of desc.fields) if (field.message) hold(field.message);
    };
    for (const route of [...REST_ROUTES, ...STREAM_ROUTES]) hold(route.body);
    expect([...ANNOTATIONS.keys()].filter((desc) => !held.has(desc)).map((desc) => desc.typeName)).toEqual([]);
  });
});
