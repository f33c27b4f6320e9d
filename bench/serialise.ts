// What writing each REST answer costs the process: the answer message into the v1 JSON
// and that into bytes by the route's own serialiser, as the gateway does on a cache
// miss, against protobuf-es's proto3 JSON of the same message (toJsonString, the
// library's reflection-based writer) measured in the same run.
//
// Each message is filled from its descriptor: every field set, lists of messages 10
// long (a race live of 10 start groups of 10 boats), lists of numbers 600 long (a
// track boat's 10 minutes, every seventh value NaN). CPU time of this process (/proc/self/stat, user + system)
// per answer, median of the rounds.
// Run: npm run bench:serialise   (ROUNDS=7 for more rounds)

import { readFileSync } from "node:fs";
import { create, toJsonString, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import Fastify from "fastify";
import { COMPONENT_SCHEMAS, type JsonSchema } from "../src/gateway/json-schemas.js";
import { REST_ROUTES } from "../src/gateway/rest-routes.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** Each round writes answers for at least this long. */
const ROUND_CPU_SECONDS = 0.5;

function cpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

let counter = 0;

/** Every field of `desc` with a value; enums take their first named value. */
function filled(desc: DescMessage): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (field.oneof) continue;
    if (field.fieldKind === "list")
      init[field.localName] = Array.from({ length: field.listKind === "message" ? 10 : 600 }, () => value(field));
    else init[field.localName] = value(field);
  }
  return init;
}

function value(field: DescField): unknown {
  const n = ++counter;
  const message = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? field.message : undefined;
  if (message?.typeName === "google.protobuf.Timestamp") return timestampFromMs(1_764_000_000_000 + n * 1000);
  if (message) return create(message, filled(message));
  const enumDesc = field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum") ? field.enum : undefined;
  if (enumDesc) return enumDesc.values.find((v) => v.number !== 0)!.number;
  const scalar = field.fieldKind === "scalar" || field.fieldKind === "list" ? field.scalar : undefined;
  if (scalar === 9) return `value ${n}`;
  if (scalar === 8) return n % 2 === 0;
  // NaN, "not reported", only where the proto allows it: a track boat's packed columns.
  if (scalar === 1 || scalar === 2) return field.fieldKind === "list" && n % 7 === 0 ? Number.NaN : n + 0.25;
  return [3, 4, 6, 16, 18].includes(scalar!) ? BigInt(1_764_000_000_000 + n) : n;
}

/** The serialiser Fastify compiles from a route's 200 answer. */
async function schemaSerialiser(answer: JsonSchema): Promise<(json: unknown) => string> {
  const app = Fastify();
  for (const component of COMPONENT_SCHEMAS) app.addSchema(component);
  let serialise: ((json: unknown) => string) | undefined;
  app.get("/", { schema: { response: { 200: answer } } }, async (_request, reply) => {
    serialise = reply.getSerializationFunction("200", "application/json") as (json: unknown) => string;
    return reply.send("");
  });
  await app.inject({ method: "GET", url: "/" });
  await app.close();
  return serialise!;
}

/** CPU seconds per call of `write`, median of the rounds. */
function cpuPerCall(write: () => unknown): number {
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = cpuSeconds();
    let calls = 0;
    while (cpuSeconds() - started < ROUND_CPU_SECONDS) {
      for (let i = 0; i < 20; i++) write();
      calls += 20;
    }
    perCall.push((cpuSeconds() - started) / calls);
  }
  perCall.sort((a, b) => a - b);
  return perCall[Math.floor(perCall.length / 2)]!;
}

console.log(`REST answers written, CPU per answer, medians of ${ROUNDS} rounds (${new Date().toISOString()})`);
for (const route of REST_ROUTES) {
  const message = create(route.rpc.output, filled(route.rpc.output));
  const serialise = route.stringify ?? (await schemaSerialiser((route.schema.response as Record<string, JsonSchema>)[200]!));
  const bytes = serialise(route.json(message)).length;
  // Warm both writers before measuring: the first calls measure V8's compiler.
  for (let i = 0; i < 200; i++) {
    serialise(route.json(message));
    toJsonString(route.rpc.output, message);
  }
  const ours = cpuPerCall(() => serialise(route.json(message)));
  const library = cpuPerCall(() => toJsonString(route.rpc.output, message));
  console.log(
    `${route.path.padEnd(28)} ${(ours * 1e6).toFixed(1).padStart(8)} us  (${bytes} bytes; protobuf-es toJsonString ${(library * 1e6).toFixed(1)} us, ratio ${(ours / library).toFixed(2)})`,
  );
}
