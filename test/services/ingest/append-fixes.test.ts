// IngestService.AppendFixes: what a batch writes, what it counts, and what it refuses.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixRejectionReason } from "../../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../../src/scenario/import.js";
import { bearer, startApi, tokenFor, type Api } from "../../support/api.js";
import { useFreshDatabase } from "../../support/database.js";
import { boatFixes, INGEST_IDS as IDS, ingestClient, ingestScenario } from "../../support/ingest-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let token: string;

beforeAll(async () => {
  await importScenario(db.pool, ingestScenario());
  api = await startApi(db);
  token = await tokenFor(api.url, "writer");
});
afterAll(() => api?.close());

describe("AppendFixes", () => {
  it("writes new fixes and counts a re-sent batch as duplicates", async () => {
    const client = ingestClient(api.runtime);
    const batch = { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, Date.now() - 30_000, 5)] };
    const first = await client.appendFixes(batch, { headers: bearer(token) });
    expect({ accepted: first.accepted, duplicates: first.duplicates, rejected: first.rejected }).toEqual({ accepted: 5, duplicates: 0, rejected: [] });
    const again = await client.appendFixes(batch, { headers: bearer(token) });
    expect({ accepted: again.accepted, duplicates: again.duplicates }).toEqual({ accepted: 0, duplicates: 5 });
  });

  it("rejects fixes of an entry outside the group", async () => {
    const client = ingestClient(api.runtime);
    const answer = await client.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.outsider, Date.now() - 30_000, 2)] }, { headers: bearer(token) });
    expect(answer.rejected.map((r) => r.reason)).toEqual([FixRejectionReason.UNKNOWN_ENTRY, FixRejectionReason.UNKNOWN_ENTRY]);
  });
});
