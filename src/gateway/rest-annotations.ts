// What the v1 JSON of a response message says that its descriptor cannot, in one place,
// as grpc-gateway's annotations do for its OpenAPI output: a component's name where it
// is not the message's, a wrapper message written as its one field, and per field the
// JSON Schema keywords beyond the field's type (limits, formats, descriptions, a
// Timestamp that is always set). Everything else, which properties a body has in which
// order, their types, nulls, arrays, enums and nested objects, is read from the
// descriptors (v1-json.ts writes the bytes, v1-schema.ts the schema). An annotation
// adds keywords to the derived schema: on a repeated field, `items` adds to the items'.
// String lengths are the read model's column widths (store/migrations.ts).

import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  EventLiveSchema,
  EventSchema,
  ListEventsResponseSchema,
  RaceStatusSchema,
  StartGroupStatusSchema,
} from "../../gen/racing/v1/event_pb.js";
import { BoatRefSchema } from "../../gen/racing/v1/common_pb.js";
import { GetLiveInsightsResponseSchema, InsightSchema } from "../../gen/racing/v1/live_insights_pb.js";
import {
  CourseMarkSchema,
  CourseStepSchema,
  LiveBoatSchema,
  LiveOrderRowSchema,
  LiveOrderSchema,
  RaceLiveSchema,
  StartGroupLiveSchema,
  WindSchema,
} from "../../gen/racing/v1/race_live_pb.js";
import { EventResultsSchema, RaceResultsSchema, ResultRowSchema, StartGroupResultsSchema } from "../../gen/racing/v1/results_pb.js";
import {
  AnalyticsBoatSchema,
  BoatLegSchema,
  CourseLegSchema,
  GetLegsResponseSchema,
  LastManoeuvreSchema,
  ListManoeuvresResponseSchema,
  ManoeuvreItemSchema,
  PassingItemSchema,
  RaceAnalyticsSchema,
} from "../../gen/racing/v1/race_analytics_pb.js";
import { ListScopesResponseSchema, ScopeGrantSchema } from "../../gen/racing/v1/scopes_pb.js";
import { GetTrackPageResponseSchema, TrackBoatSchema } from "../../gen/racing/v1/track_pb.js";
import { SCOPES } from "../auth/scopes.js";
import { STEP_KIND_ENUMS } from "../messages/enum-words.js";
import { LANGUAGES } from "../insights/languages.js";
import type { JsonSchema } from "./json-schema-ref.js";
import { DEFAULT_MAX_SPEED_KN } from "../domain/analytics/kinematics.js";

export interface Annotation {
  /** The message's component name in the OpenAPI document, where it is not the message's own. */
  component?: string;
  /** The component's description. */
  description?: string;
  /** Written as this one field's value rather than as an object (a wrapper that tells "none", null, from an empty list). */
  writtenAs?: string;
  /** JSON Schema keywords of each field (by its JSON name) beyond what its type says. */
  fields?: Readonly<Record<string, JsonSchema>>;
}

const UUID: JsonSchema = { format: "uuid", minLength: 36, maxLength: 36 };
const NAME = (maxLength: number): JsonSchema => ({ minLength: 1, maxLength });
/** A count or a number from 1: int32 fields that are never negative. */
const COUNT: JsonSchema = { minimum: 0 };
/** A place, 1 = first. */
const RANK = (description: string): JsonSchema => ({ minimum: 1, description });
const DEGREES: JsonSchema = { minimum: 0, maximum: 359 };
/** A bearing or course in degrees true (a double; 360 only by rounding). */
const BEARING: JsonSchema = { minimum: 0, maximum: 360 };
/** A distance, a duration or a speed that cannot be negative. */
const NOT_NEGATIVE: JsonSchema = { minimum: 0 };
const LATITUDE: JsonSchema = { minimum: -90, maximum: 90 };
const LONGITUDE: JsonSchema = { minimum: -180, maximum: 180 };
/** A Timestamp the message always sets: its date-time is never null. */
const ALWAYS_SET: JsonSchema = { type: "string" };
/** A packed double column whose NaN ("not reported": repeated scalars cannot be unset) is written as null. */
const NAN_AS_NULL: JsonSchema = { type: ["number", "null"] };

/** Fields of these names are the same in every response message; a message's own annotation adds to them. */
export const FIELDS_BY_NAME: Readonly<Record<string, JsonSchema>> = {
  raceId: UUID,
  eventId: UUID,
  startGroupId: UUID,
  entryId: UUID,
  name: NAME(200),
  sailNumber: { ...NAME(50), description: "As entered on the entry.", example: "GBR 1234" },
  boatName: { ...NAME(200), description: "As entered on the entry." },
  delaySeconds: { minimum: 0, maximum: 600, description: "The event's delay: every race answer is cut at now minus this." },
  state: { description: "Scheduled, Started, Finished, Postponed or Abandoned." },
};

type FieldName<Desc extends DescMessage> = Exclude<keyof MessageShape<Desc>, "$typeName" | "$unknown"> & string;

/** The annotation of one message, its field names checked against the message's. */
function annotate<Desc extends DescMessage>(
  desc: Desc,
  annotation: Omit<Annotation, "writtenAs" | "fields"> & {
    writtenAs?: FieldName<Desc>;
    fields?: Partial<Record<FieldName<Desc>, JsonSchema>>;
  },
): [DescMessage, Annotation] {
  return [desc, annotation as Annotation];
}

export const ANNOTATIONS: ReadonlyMap<DescMessage, Annotation> = new Map([
  annotate(ListEventsResponseSchema, {
    component: "EventsPage",
    fields: {
      items: { maxItems: 100, description: "Newest startDate first, events without a start date last, ties by id." },
      nextPage: { minimum: 2, maximum: 1000, description: "The page to ask for next; null on the last page." },
      totalItems: { ...COUNT, description: "Every event the club may see, also beyond the 1000 reachable by paging." },
    },
  }),
  annotate(EventSchema, {
    component: "EventSummary",
    fields: {
      id: UUID,
      name: NAME(300),
      startDate: { description: "Null for an event without a start date (listed last)." },
      raceCount: COUNT,
      trackingShared: { description: "Whether the race endpoints show this event's tracking (opt-in)." },
    },
  }),
  annotate(EventLiveSchema, { fields: { name: NAME(300), races: { description: "By race number." } } }),
  annotate(RaceStatusSchema, {
    fields: { raceNo: COUNT, isLive: { description: "The race's broadcast-active flag: the race to follow." } },
  }),
  annotate(StartGroupStatusSchema, { fields: { startTimeUtc: { description: "The gun; null while none is set." } } }),

  annotate(RaceLiveSchema, {
    fields: {
      raceNo: COUNT,
      dataAsOf: {
        ...ALWAYS_SET,
        description: "Now minus delaySeconds at the shared read; nothing in the body is newer. Also the X-Data-As-Of header.",
      },
    },
  }),
  annotate(StartGroupLiveSchema, {
    fields: {
      courseVersion: COUNT,
      wind: { description: "The newest committee reading at or before dataAsOf; null when none." },
      boats: { description: "Approved entries with a fix inside the capture window, by sail number." },
      liveOrder: {
        description:
          "Unofficial: never present it as a result. By rank, unranked last; null while the race is not live or no order is known at dataAsOf.",
      },
      liveOrderAsOf: { description: "Null exactly when liveOrder is null." },
      course: {
        description:
          "The course of courseVersion, step by step in sailing order, to draw under the boats; empty when none is applied. An addition to the spec's object.",
      },
    },
  }),
  annotate(WindSchema, {
    fields: {
      twd: { ...DEGREES, description: "True wind direction, degrees." },
      tws: { description: "True wind speed in knots; null: the reading has a direction only." },
      measuredAtUtc: ALWAYS_SET,
    },
  }),
  annotate(LiveBoatSchema, {
    fields: {
      entryId: { description: "The same id as in the track and results endpoints." },
      lat: { ...LATITUDE, description: "WGS84." },
      lon: { ...LONGITUDE, description: "WGS84." },
      sogKn: { description: "Speed over ground, knots; null when the phone did not report it." },
      cogDeg: { description: "Course over ground, degrees; null when not reported." },
      fixTimeUtc: { ...ALWAYS_SET, description: "The phone's own sample time, never after dataAsOf." },
    },
  }),
  // "No order" (null) and "an empty order" ([]) differ, which a repeated field alone cannot say.
  annotate(LiveOrderSchema, { writtenAs: "rows" }),
  annotate(LiveOrderRowSchema, {
    fields: {
      rank: RANK("1 = leading now; null: unranked."),
      elapsedSeconds: { description: "As the live leaderboard computed it then." },
      correctedSeconds: { description: "As the live leaderboard computed it then." },
      deltaSeconds: { description: "As the live leaderboard computed it then." },
      finishTimeUtc: { description: "Phone-recorded finish, once at or before dataAsOf." },
    },
  }),
  annotate(CourseStepSchema, {
    fields: {
      kind: {
        enum: Object.keys(STEP_KIND_ENUMS),
        description: "A start or finish line has its two ends, a gate two marks, a rounding mark one.",
      },
      label: { ...NAME(100), description: "e.g. Windward; null when unlabelled." },
    },
  }),
  annotate(CourseMarkSchema, {
    fields: { key: NAME(100), lat: { ...LATITUDE, description: "WGS84." }, lon: { ...LONGITUDE, description: "WGS84." } },
  }),

  annotate(GetLiveInsightsResponseSchema, {
    component: "LiveInsights",
    fields: {
      isLive: { description: "False: insights is empty and generatedAtUtc null." },
      lang: { enum: [...LANGUAGES], description: "The language the text is in." },
      dataAsOf: { ...ALWAYS_SET, description: "The generation's cut-off; no fact is newer. Also the X-Data-As-Of header." },
      insights: { maxItems: 30, description: "Facts of the 15 minutes before dataAsOf, newest first." },
    },
  }),
  annotate(InsightSchema, {
    fields: {
      id: {
        pattern: "^[0-9a-f]{16}$",
        minLength: 16,
        maxLength: 16,
        description: "Stable: the same fact keeps this id on every call; show each id once.",
      },
      startGroupName: NAME(200),
      atUtc: { ...ALWAYS_SET, description: "When the event itself happened." },
      text: {
        minLength: 1,
        maxLength: 160,
        description: "One sentence in lang; may be rephrased later under the same id. Do not re-translate.",
      },
      boats: { maxItems: 2, description: "leadChange: [new leader, previous leader]; windShift: []; otherwise [boat]." },
      markLabel: { maxLength: 100, description: "markRounding only: the course step's label, or its mark key." },
      rank: RANK("gain: the live place now; finish: the unofficial live place if known."),
      placesGained: { minimum: 2, description: "gain only." },
      twdFrom: { ...DEGREES, description: "windShift only." },
      twdTo: { ...DEGREES, description: "windShift only." },
      twsFrom: { description: "windShift only, knots; null: that reading had a direction only." },
      twsTo: { description: "windShift only, knots; null: that reading had a direction only." },
    },
  }),
  annotate(BoatRefSchema, { component: "InsightBoat" }),

  annotate(GetTrackPageResponseSchema, {
    component: "TrackPage",
    fields: {
      since: {
        ...ALWAYS_SET,
        description:
          "The request's since, in this form (UTC, milliseconds): an offset of zero is written Z, and a finer fraction is rounded up to the millisecond, which selects exactly the same fixes.",
      },
      until: {
        ...ALWAYS_SET,
        description: "The requested until, cut at since + 10 min and at now minus delaySeconds; always after since.",
      },
      nextSince: { description: "Pass as since for the next page; null once the capture window (gun + 3 h) has closed." },
      boats: { description: "Boats with at least one point in [since, until), by sail number." },
    },
  }),
  annotate(TrackBoatSchema, {
    description: "All five arrays have the same length and are index-aligned.",
    fields: {
      t: { items: { minimum: 0 }, description: "Epoch milliseconds, strictly ascending, about 1 Hz." },
      lat: { items: LATITUDE, description: "WGS84; index i belongs to t[i]." },
      lon: { items: LONGITUDE, description: "WGS84; index i belongs to t[i]." },
      sogKn: { items: NAN_AS_NULL, description: "Knots; null where the phone did not report it." },
      cogDeg: { items: NAN_AS_NULL, description: "Degrees; null where the phone did not report it." },
    },
  }),

  annotate(RaceAnalyticsSchema, {
    fields: {
      dataAsOf: {
        ...ALWAYS_SET,
        description: "Now minus delaySeconds at the shared computation; nothing is computed from newer data. Also the X-Data-As-Of header.",
      },
      wind: { description: "The newest committee reading at or before dataAsOf, as in live; null when none (every leg is then a reach)." },
      legs: { description: "The course in force at dataAsOf, leg by leg in sailing order, under that wind; empty when none is applied." },
      boats: { description: "Boats with a fix in their capture window, by progressRank: unofficial, never a result." },
    },
  }),
  annotate(CourseLegSchema, {
    fields: {
      legIndex: RANK("Leg n runs from step n to step n+1: leg 1 from the start line to the first mark."),
      kind: { description: "Against the wind: within 45 degrees of it upwind, of its opposite downwind, otherwise reach." },
      bearingDeg: { ...BEARING, description: "From the leg's start to its end (a line's or gate's middle), degrees true." },
      lengthM: { ...NOT_NEGATIVE, description: "Metres, between the same points." },
    },
  }),
  annotate(AnalyticsBoatSchema, {
    fields: {
      progressRank: RANK("1 = the leader by course progress (finished boats by finish time first). Unofficial."),
      legIndex: { ...COUNT, description: "0 before the start; null after the finish." },
      legKind: { description: "Null before the start and after the finish." },
      distanceToNextMarkM: { ...NOT_NEGATIVE, description: "To the next step (a line's nearest point); null after the finish." },
      distanceBehindLeaderM: { ...NOT_NEGATIVE, description: "The leader's course progress minus the boat's; null with no kept fix." },
      timeBehindLeaderSeconds: {
        ...NOT_NEGATIVE,
        description:
          "That distance over the boat's own 60 s VMG (finished: finish time minus the first finisher's); null when that VMG is not positive.",
      },
      sogKn: { ...NOT_NEGATIVE, description: "From the positions of the last 10 s, not the phone's own; null without two kept fixes." },
      cogDeg: { ...BEARING, description: "From the same positions; null without a velocity." },
      vmgKn: { description: "Toward the next mark: along the wind axis upwind and downwind, toward the mark on reaches (VMC)." },
      twaDeg: { minimum: -180, maximum: 180, description: "TWD minus course over ground: negative with the wind over port." },
      startedAtUtc: { description: "The first crossing of the start line from the pre-start side at or after the gun." },
      finishedAtUtc: { description: "The phone-recorded finish when there is one, otherwise the finish line's crossing." },
      fixTimeUtc: { description: "The newest fix the analytics kept, never after dataAsOf; null while none is kept." },
      stale: { description: "Racing, and the newest fix is more than 30 s older than dataAsOf: grey it out. Never for a finished boat." },
      ignoredFixes: {
        ...COUNT,
        description: `Fixes left out of every analytic: reaching them would need more than ${DEFAULT_MAX_SPEED_KN} knots.`,
      },
      lastManoeuvre: { description: "Reported once its loss is known, 30 s after its end; null before the first." },
    },
  }),
  annotate(LastManoeuvreSchema, { fields: { atUtc: ALWAYS_SET } }),

  annotate(GetLegsResponseSchema, {
    component: "RaceLegs",
    fields: {
      dataAsOf: { ...ALWAYS_SET, description: "As in the race analytics. Also the X-Data-As-Of header." },
      boats: { description: "The boats of the race analytics, in its order." },
    },
  }),
  annotate(BoatLegSchema, {
    fields: {
      legIndex: RANK("Leg n runs from passing step n to passing step n+1."),
      startedAtUtc: ALWAYS_SET,
      endedAtUtc: { description: "Null while the boat is on the leg." },
      durationSeconds: { ...NOT_NEGATIVE, description: "Until endedAtUtc, or dataAsOf while on the leg." },
      distanceSailedM: { ...NOT_NEGATIVE, description: "The leg's kept fixes joined by straight lines." },
      avgSogKn: { ...NOT_NEGATIVE, description: "Over the time the leg's kept fixes cover; null before they cover any." },
      avgVmgKn: { description: "Metres made along the leg's VMG axis over the same time; null as avgSogKn." },
      tacks: COUNT,
      gybes: COUNT,
      rankAtEnd: RANK("By the time the leg's end was passed; null while on the leg."),
      behindLegLeaderSeconds: { ...NOT_NEGATIVE, description: "Its end time minus the first boat's; null while on the leg." },
    },
  }),

  annotate(ListManoeuvresResponseSchema, {
    component: "ManoeuvresPage",
    fields: {
      since: { ...ALWAYS_SET, description: "The request's since, rounded up to the millisecond." },
      until: { ...ALWAYS_SET, description: "The requested until, cut at since + 10 min and at dataAsOf; always after since." },
      nextSince: { description: "Pass as since for the next page; null once the capture window (gun + 3 h) has closed." },
      manoeuvres: { description: "Timed in [since, until), by time." },
      passings: { description: "Timed in [since, until), by time." },
    },
  }),
  annotate(ManoeuvreItemSchema, {
    fields: {
      atUtc: { ...ALWAYS_SET, description: "When the bow or stern crossed the wind; a penalty turn's start." },
      lat: { ...LATITUDE, description: "WGS84." },
      lon: { ...LONGITUDE, description: "WGS84." },
      cogBeforeDeg: BEARING,
      cogAfterDeg: BEARING,
      durationSeconds: NOT_NEGATIVE,
      lossM: { description: "Metres lost against sailing on at the VMG before the turn; null with no track before it." },
    },
  }),
  annotate(PassingItemSchema, {
    fields: {
      stepIndex: RANK("The step's number in sailing order: 1 is the start line."),
      label: { ...NAME(100), description: "e.g. Windward; null when unlabelled." },
      atUtc: ALWAYS_SET,
    },
  }),

  annotate(EventResultsSchema, {
    fields: { name: NAME(300), races: { description: "Every race by race number, also those without published results." } },
  }),
  annotate(RaceResultsSchema, {
    fields: {
      raceNo: COUNT,
      startGroups: { description: "Only groups with published results: the official results, never the live order." },
    },
  }),
  annotate(StartGroupResultsSchema, {
    fields: {
      status: { description: "provisional: may still change (protests, redress)." },
      publishedAtUtc: ALWAYS_SET,
      rows: { description: "By rank, unranked last, then by sail number." },
    },
  }),
  annotate(ResultRowSchema, {
    fields: {
      rank: RANK("Official place; null when unranked (DNF, DNS, ...)."),
      status: { ...NAME(8), description: "Scoring code as published: OK, DNF, DNS, DSQ, OCS, RET, ...", example: "OK" },
      elapsedSeconds: { description: "Null when not published." },
      correctedSeconds: { description: "Handicap time; null when not published." },
      points: { description: "Null when not published." },
    },
  }),

  annotate(ListScopesResponseSchema, { component: "ScopeList", fields: { scopes: { maxItems: Object.keys(SCOPES).length } } }),
  annotate(ScopeGrantSchema, {
    fields: {
      name: { enum: Object.keys(SCOPES) },
      description: { maxLength: 200 },
      granted: { description: "Whether the calling token holds it." },
    },
  }),
]);
