// Ingested fixes in the metrics: accepted, duplicate, and rejected by reason, as the
// committed batches counted them.

import { describe, expect, it } from "vitest";
import { registry } from "../../src/telemetry/metrics.js";
import { bearer, useApi } from "../support/api.js";
import { boatFixes, INGEST_IDS as IDS, ingestClient, ingestScenario } from "../support/ingest-scenarios.js";

const api = useApi({ scenario: ingestScenario, client: "writer" });

async function fixes(): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric("race_api_ingest_fixes_total")!.get();
  return Object.fromEntries(metric.values.map((v) => [`${v.labels.result} ${v.labels.reason}`, v.value]));
}

describe("race_api_ingest_fixes_total", () => {
  it("counts accepted fixes, a re-sent batch as duplicates, and rejections by reason", async () => {
    const client = ingestClient(api.runtime);
    const batch = { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, Date.now() - 30_000, 5)] };
    await client.appendFixes(batch, { headers: bearer(api.token) });
    await client.appendFixes(batch, { headers: bearer(api.token) });
    await client.appendFixes(
      { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.outsider, Date.now() - 30_000, 2)] },
      { headers: bearer(api.token) },
    );
    expect(await fixes()).toEqual({ "accepted ": 5, "duplicate ": 5, "rejected UNKNOWN_ENTRY": 2 });
  });

  it("counts nothing for a batch that wrote nothing", async () => {
    const before = await fixes();
    const client = ingestClient(api.runtime);
    const malformed = { raceId: IDS.race, startGroupId: IDS.group, boats: [{ ...boatFixes(IDS.a, Date.now() - 30_000, 2), lat: [1] }] };
    await expect(client.appendFixes(malformed, { headers: bearer(api.token) })).rejects.toThrow();
    expect(await fixes()).toEqual(before);
  });
});
