// One computation of a race's analytics (now, or at a past moment) as the answers the
// service hands out: each group's messages built on first use and then shared, so the
// gateway serialises, hashes and compresses each once.

import { create } from "@bufbuild/protobuf";
import {
  type GetLegsResponse,
  type GetRaceAnalyticsResponse,
  GetRaceAnalyticsResponseSchema,
  type RaceAnalytics,
} from "../../../gen/racing/v1/race_analytics_pb.js";
import type { RaceRecord, StartGroupRecord } from "../../store/races.js";
import { analyticsMessage, legsMessage } from "./answers.js";
import type { GroupAnalytics } from "./race-analytics.js";

/** One shared computation of a race: its groups' answers at one dataAsOf, each made once. */
export class AnalyticsRead {
  /** X-Data-As-Of, written once rather than per request. */
  readonly dataAsOf: string;
  private readonly groups: Map<string, GroupAnswers>;

  constructor(
    readonly race: RaceRecord,
    readonly dataAsOfMs: number,
    groups: readonly GroupAnalytics[],
  ) {
    this.dataAsOf = new Date(dataAsOfMs).toISOString();
    this.groups = new Map(groups.map((group) => [group.group.uuid, new GroupAnswers(race, group, dataAsOfMs)]));
  }

  /** The answers of one of the race's groups (the read's key holds the race's groups, so it has each). */
  of(group: StartGroupRecord): GroupAnswers {
    const answers = this.groups.get(group.uuid);
    if (answers === undefined) throw new Error(`start group ${group.uuid} is not in the shared read of race ${this.race.uuid}`);
    return answers;
  }
}

/**
 * A group's answer messages, each built on first use and then shared: the gateway keeps
 * a message's JSON, ETag and compressed bytes with the object, so every caller must get
 * the same one.
 */
class GroupAnswers {
  private state: RaceAnalytics | undefined;
  private answer: GetRaceAnalyticsResponse | undefined;
  private boatLegs: GetLegsResponse | undefined;

  constructor(
    private readonly race: RaceRecord,
    readonly analytics: GroupAnalytics,
    private readonly dataAsOfMs: number,
  ) {}

  get message(): RaceAnalytics {
    this.state ??= analyticsMessage(this.race, this.analytics, this.dataAsOfMs);
    return this.state;
  }

  get response(): GetRaceAnalyticsResponse {
    this.answer ??= create(GetRaceAnalyticsResponseSchema, { raceAnalytics: this.message });
    return this.answer;
  }

  get legs(): GetLegsResponse {
    this.boatLegs ??= legsMessage(this.race, this.analytics, this.dataAsOfMs);
    return this.boatLegs;
  }
}

/**
 * What a race's analytics depend on besides the stored rows and the time: its groups,
 * their guns and the delay. A change makes a new read rather than a group missing from one.
 */
export function readKey(race: RaceRecord): string {
  return `${race.uuid}/${race.event.delaySeconds}/${race.startGroups.map((group) => `${group.uuid}@${group.gunMs}`).join(",")}`;
}
