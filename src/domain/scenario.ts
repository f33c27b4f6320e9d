// The `race-scenario/v1` document as TypeScript types, field for field with
// scenario/scenario.schema.json (the project's copy of the format's schema). Its
// words (start group states, course steps, readings, tracks) are the vocabulary that
// the import, the store, the simulator and insights share.

export const SCENARIO_FORMAT = "race-scenario/v1";

export type Uuid = string;
/** ISO 8601 date-time with a time zone, e.g. `2026-11-21T10:00:00.000Z`. */
export type DateTimeString = string;

export interface Scenario {
  format: typeof SCENARIO_FORMAT;
  clubs: Club[];
  clients: Client[];
  events: Event[];
}

export interface Club {
  id: Uuid;
  name: string;
  /** General data-call bucket, requests per minute (default 60). */
  rateLimitPerMinute?: number;
  /** tracking:read bucket, requests per minute (default 120). */
  trackingRateLimitPerMinute?: number;
  /** tracking:write (IngestService) bucket, requests per minute (default 6000). */
  ingestRateLimitPerMinute?: number;
  /** Web origins (`https://club.example`) whose pages may read the answers of every client of the club (CORS). */
  allowedOrigins?: string[];
}

export interface Client {
  clientId: string;
  /** Plain text in the file; the service stores only a slow hash of it. */
  clientSecret: string;
  clubId: Uuid;
  name?: string;
  scopes: string[];
  disabled?: boolean;
  expiresAt?: DateTimeString | null;
  /** IPv4/IPv6 addresses or CIDR ranges; empty or absent means any address. */
  ipAllowlist?: string[];
  /** Web origins whose pages may read this client's answers (CORS), besides its club's. */
  allowedOrigins?: string[];
}

export interface Event {
  id: Uuid;
  clubId: Uuid;
  coHostClubIds?: Uuid[];
  name: string;
  startDate: DateTimeString | null;
  endDate?: DateTimeString | null;
  published?: boolean;
  legacy?: boolean;
  trackingShared?: boolean;
  delaySeconds?: number;
  entries: Entry[];
  races: Race[];
}

export interface Entry {
  id: Uuid;
  sailNumber: string;
  boatName: string;
  approved?: boolean;
  hasPhone?: boolean;
  /** Private: stored, never served. */
  userId?: string;
  /** Private: stored, never served. */
  deviceId?: string;
  /** Private: stored, never served. */
  phoneModel?: string;
}

export interface Race {
  id: Uuid;
  raceNo: number;
  name: string;
  isLive: boolean;
  startGroups: StartGroup[];
}

export const START_GROUP_STATES = ["Scheduled", "Started", "Finished", "Postponed", "Abandoned"] as const;
export type StartGroupState = (typeof START_GROUP_STATES)[number];

export interface StartGroup {
  id: Uuid;
  name: string;
  state: StartGroupState;
  /** The gun; null while not set. */
  startTimeUtc: DateTimeString | null;
  finishTimeUtc?: DateTimeString | null;
  entryIds: Uuid[];
  courses?: CourseVersion[];
  wind?: WindReading[];
  liveOrder?: LiveOrderReading[];
  finishes?: Finish[];
  tracks?: Track[];
  results?: Results;
}

export const COURSE_STEP_KINDS = ["start", "mark", "gate", "finish"] as const;
export type CourseStepKind = (typeof COURSE_STEP_KINDS)[number];

export interface CourseVersion {
  version: number;
  appliedFromUtc: DateTimeString;
  steps: CourseStep[];
}

export interface CourseStep {
  kind: CourseStepKind;
  label?: string | null;
  /** A start or finish line has its two ends, a gate two marks, a rounding mark one. */
  marks: CourseMark[];
}

export interface CourseMark {
  key: string;
  lat: number;
  lon: number;
}

export interface WindReading {
  measuredAtUtc: DateTimeString;
  /** True wind direction, degrees 0-359. */
  twd: number;
  /** True wind speed in knots; null for a direction-only reading. */
  tws?: number | null;
}

export interface LiveOrderReading {
  asOfUtc: DateTimeString;
  rows: LiveOrderRow[];
}

export interface LiveOrderRow {
  entryId: Uuid;
  rank: number | null;
  elapsedSeconds?: number | null;
  correctedSeconds?: number | null;
  deltaSeconds?: number | null;
}

export interface Finish {
  entryId: Uuid;
  finishTimeUtc: DateTimeString;
}

/** Parallel arrays, one index per fix; `t` in epoch milliseconds, strictly ascending. */
export interface Track {
  entryId: Uuid;
  t: number[];
  lat: number[];
  lon: number[];
  sogKn?: (number | null)[];
  cogDeg?: (number | null)[];
  /** Private GPS accuracy in metres: stored, never served. */
  accuracyM?: (number | null)[];
}

export interface Results {
  status: "provisional" | "final";
  publishedAtUtc: DateTimeString;
  rows: ResultRow[];
}

export interface ResultRow {
  entryId: Uuid;
  rank: number | null;
  /** Scoring code: OK, DNF, DNS, DSQ, OCS, RET, ... */
  status: string;
  elapsedSeconds?: number | null;
  correctedSeconds?: number | null;
  points?: number | null;
}
