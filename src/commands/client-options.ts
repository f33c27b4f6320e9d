// What a command that calls a running server as an API client takes, and the one way it
// reads it: where (--url, and --grpc-url for the gRPC listener) and as whom (--client-id,
// the secret in --client-secret or RACE_API_CLIENT_SECRET), and how a command line that
// cannot be run is told. `race-api feed` and `race-api upload-gpx` use it.

import type { IngestClientOptions } from "../sim/ingest-client.js";
import type { Output } from "./command-io.js";

/** A command line that cannot be run: the command prints it and exits 2. */
export class UsageError extends Error {}

/**
 * `parse`'s options, or null once why the command line cannot be run and the usage are
 * written to `stderr` (the command then exits 2). parseArgs refuses an unknown or
 * malformed option with a TypeError.
 */
export function parseCommandLine<T>(command: string, usage: string, stderr: Output, parse: () => T): T | null {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    stderr.write(`race-api ${command}: ${error.message}\n\n${usage}`);
    return null;
  }
}

/** The parseArgs options of the client's address and identity. */
export const CLIENT_OPTIONS = {
  url: { type: "string" },
  "grpc-url": { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
} as const;

type ClientValues = { url?: string; "grpc-url"?: string; "client-id"?: string; "client-secret"?: string };

export function clientOptions(values: ClientValues, env: NodeJS.ProcessEnv): IngestClientOptions {
  const url = httpUrl("--url", values.url);
  const clientId = values["client-id"];
  if (!clientId) throw new UsageError("--client-id is required");
  const clientSecret = values["client-secret"] ?? env.RACE_API_CLIENT_SECRET;
  if (!clientSecret) throw new UsageError("the client's secret is required: --client-secret or RACE_API_CLIENT_SECRET");
  const options: IngestClientOptions = { url, clientId, clientSecret };
  if (values["grpc-url"] !== undefined) options.grpcUrl = httpUrl("--grpc-url", values["grpc-url"]);
  return options;
}

/** An http or https URL's origin. */
function httpUrl(name: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`${name} is required`);
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new UsageError(`${name} must be an http or https URL, got ${JSON.stringify(value)}`);
  }
  return url.origin;
}
