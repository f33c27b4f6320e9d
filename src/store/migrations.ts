// The versioned schema of the read model. A migration is never edited once it has
// landed: change the schema by appending a new one. Statements are written to run
// unchanged on MariaDB 10.11 and MySQL 8, and each is idempotent (IF NOT EXISTS) so a
// migration interrupted half-way completes when run again.
//
// Keys: every table has a compact integer surrogate key used for joins; the public
// UUID is a unique CHAR(36) ascii column looked up once per request. Times are
// DATETIME(3) in UTC, except GPS fixes, whose `t` is epoch milliseconds as the API
// serves it.

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

const TABLE_OPTIONS = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci";
const UUID = "CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL";
const ID = "INT UNSIGNED NOT NULL";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "read model",
    statements: [
      `CREATE TABLE IF NOT EXISTS clubs (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        uuid ${UUID},
        name VARCHAR(200) NOT NULL,
        rate_limit_per_minute INT UNSIGNED NULL COMMENT 'general data-call bucket; NULL = default 60',
        tracking_rate_limit_per_minute INT UNSIGNED NULL COMMENT 'tracking:read bucket; NULL = default 120',
        UNIQUE KEY clubs_uuid (uuid)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS api_clients (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        client_id VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        club_id ${ID},
        name VARCHAR(200) NULL,
        secret_hash VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'scrypt; the secret itself is never stored',
        secret_version INT UNSIGNED NOT NULL DEFAULT 1 COMMENT 'bumped by each rotation; tokens carry it',
        scopes VARCHAR(1000) CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'space-separated, as in OAuth',
        disabled BOOLEAN NOT NULL DEFAULT FALSE,
        expires_at DATETIME(3) NULL,
        ip_allowlist TEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'JSON array of addresses and CIDR ranges; [] = any',
        created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
        UNIQUE KEY api_clients_client_id (client_id),
        KEY api_clients_club (club_id),
        CONSTRAINT api_clients_club FOREIGN KEY (club_id) REFERENCES clubs (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS events (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        uuid ${UUID},
        club_id ${ID} COMMENT 'owner; co-hosts in event_co_hosts',
        name VARCHAR(300) NOT NULL,
        start_date DATETIME(3) NULL,
        end_date DATETIME(3) NULL,
        published BOOLEAN NOT NULL DEFAULT TRUE,
        legacy BOOLEAN NOT NULL DEFAULT FALSE COMMENT 'legacy ids are answered as not found',
        tracking_shared BOOLEAN NOT NULL DEFAULT FALSE COMMENT 'the opt-in for race data',
        delay_seconds SMALLINT UNSIGNED NOT NULL DEFAULT 0,
        UNIQUE KEY events_uuid (uuid),
        KEY events_club_listing (club_id, start_date, uuid),
        CONSTRAINT events_club FOREIGN KEY (club_id) REFERENCES clubs (id),
        CONSTRAINT events_delay CHECK (delay_seconds <= 600)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS event_co_hosts (
        event_id ${ID},
        club_id ${ID},
        PRIMARY KEY (event_id, club_id),
        KEY event_co_hosts_club (club_id),
        CONSTRAINT event_co_hosts_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
        CONSTRAINT event_co_hosts_club FOREIGN KEY (club_id) REFERENCES clubs (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS entries (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        uuid ${UUID},
        event_id ${ID},
        sail_number VARCHAR(50) NOT NULL,
        boat_name VARCHAR(200) NOT NULL,
        approved BOOLEAN NOT NULL DEFAULT TRUE,
        has_phone BOOLEAN NOT NULL DEFAULT TRUE,
        UNIQUE KEY entries_uuid (uuid),
        KEY entries_event (event_id),
        CONSTRAINT entries_event FOREIGN KEY (event_id) REFERENCES events (id)
      ) ${TABLE_OPTIONS}`,

      // Private fields live apart so no query of entries can serve them by accident.
      `CREATE TABLE IF NOT EXISTS entry_private (
        entry_id ${ID} PRIMARY KEY,
        user_id VARCHAR(200) NULL,
        device_id VARCHAR(200) NULL,
        phone_model VARCHAR(200) NULL,
        CONSTRAINT entry_private_entry FOREIGN KEY (entry_id) REFERENCES entries (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS races (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        uuid ${UUID},
        event_id ${ID},
        race_no INT NOT NULL,
        name VARCHAR(200) NOT NULL,
        is_live BOOLEAN NOT NULL DEFAULT FALSE COMMENT 'broadcast-active flag',
        UNIQUE KEY races_uuid (uuid),
        KEY races_event (event_id, race_no),
        CONSTRAINT races_event FOREIGN KEY (event_id) REFERENCES events (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS start_groups (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        uuid ${UUID},
        race_id ${ID},
        position SMALLINT UNSIGNED NOT NULL COMMENT 'order within the race, as imported',
        name VARCHAR(200) NOT NULL,
        state ENUM('Scheduled', 'Started', 'Finished', 'Postponed', 'Abandoned') NOT NULL,
        start_time DATETIME(3) NULL COMMENT 'the gun',
        finish_time DATETIME(3) NULL,
        UNIQUE KEY start_groups_uuid (uuid),
        KEY start_groups_race (race_id, position),
        CONSTRAINT start_groups_race FOREIGN KEY (race_id) REFERENCES races (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS start_group_entries (
        start_group_id ${ID},
        entry_id ${ID},
        PRIMARY KEY (start_group_id, entry_id),
        KEY start_group_entries_entry (entry_id),
        CONSTRAINT start_group_entries_group FOREIGN KEY (start_group_id) REFERENCES start_groups (id) ON DELETE CASCADE,
        CONSTRAINT start_group_entries_entry FOREIGN KEY (entry_id) REFERENCES entries (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS course_versions (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        start_group_id ${ID},
        version INT UNSIGNED NOT NULL,
        applied_from DATETIME(3) NOT NULL,
        UNIQUE KEY course_versions_group_version (start_group_id, version),
        KEY course_versions_applied (start_group_id, applied_from),
        CONSTRAINT course_versions_group FOREIGN KEY (start_group_id) REFERENCES start_groups (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS course_steps (
        course_version_id ${ID},
        step_no SMALLINT UNSIGNED NOT NULL,
        kind ENUM('start', 'mark', 'gate', 'finish') NOT NULL,
        label VARCHAR(100) NULL,
        PRIMARY KEY (course_version_id, step_no),
        CONSTRAINT course_steps_version FOREIGN KEY (course_version_id) REFERENCES course_versions (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS course_marks (
        course_version_id ${ID},
        step_no SMALLINT UNSIGNED NOT NULL,
        mark_no TINYINT UNSIGNED NOT NULL,
        mark_key VARCHAR(100) NOT NULL,
        lat DOUBLE NOT NULL,
        lon DOUBLE NOT NULL,
        PRIMARY KEY (course_version_id, step_no, mark_no),
        CONSTRAINT course_marks_step FOREIGN KEY (course_version_id, step_no) REFERENCES course_steps (course_version_id, step_no) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS wind_readings (
        start_group_id ${ID},
        measured_at DATETIME(3) NOT NULL,
        twd SMALLINT UNSIGNED NOT NULL,
        tws DOUBLE NULL COMMENT 'knots; NULL = direction only',
        PRIMARY KEY (start_group_id, measured_at),
        CONSTRAINT wind_readings_group FOREIGN KEY (start_group_id) REFERENCES start_groups (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS live_order_readings (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        start_group_id ${ID},
        as_of DATETIME(3) NOT NULL,
        UNIQUE KEY live_order_readings_group_time (start_group_id, as_of),
        CONSTRAINT live_order_readings_group FOREIGN KEY (start_group_id) REFERENCES start_groups (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS live_order_rows (
        reading_id ${ID},
        entry_id ${ID},
        rank_no INT UNSIGNED NULL COMMENT '1 = leading; NULL = unranked',
        elapsed_seconds DOUBLE NULL,
        corrected_seconds DOUBLE NULL,
        delta_seconds DOUBLE NULL,
        PRIMARY KEY (reading_id, entry_id),
        CONSTRAINT live_order_rows_reading FOREIGN KEY (reading_id) REFERENCES live_order_readings (id) ON DELETE CASCADE,
        CONSTRAINT live_order_rows_entry FOREIGN KEY (entry_id) REFERENCES entries (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS phone_finishes (
        start_group_id ${ID},
        entry_id ${ID},
        finish_time DATETIME(3) NOT NULL,
        PRIMARY KEY (start_group_id, entry_id, finish_time),
        CONSTRAINT phone_finishes_group FOREIGN KEY (start_group_id) REFERENCES start_groups (id) ON DELETE CASCADE,
        CONSTRAINT phone_finishes_entry FOREIGN KEY (entry_id) REFERENCES entries (id)
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS official_results (
        start_group_id ${ID} PRIMARY KEY,
        status ENUM('provisional', 'final') NOT NULL,
        published_at DATETIME(3) NOT NULL,
        CONSTRAINT official_results_group FOREIGN KEY (start_group_id) REFERENCES start_groups (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS official_result_rows (
        start_group_id ${ID},
        entry_id ${ID},
        rank_no INT UNSIGNED NULL,
        status VARCHAR(8) NOT NULL COMMENT 'scoring code: OK, DNF, DNS, DSQ, OCS, RET, ...',
        elapsed_seconds DOUBLE NULL,
        corrected_seconds DOUBLE NULL,
        points DOUBLE NULL,
        PRIMARY KEY (start_group_id, entry_id),
        CONSTRAINT official_result_rows_results FOREIGN KEY (start_group_id) REFERENCES official_results (start_group_id) ON DELETE CASCADE,
        CONSTRAINT official_result_rows_entry FOREIGN KEY (entry_id) REFERENCES entries (id)
      ) ${TABLE_OPTIONS}`,

      // The hot table. Rows sit in primary-key order (start group, boat, time), so both
      // hot reads are short range reads of the clustered index: a boat's newest fix at
      // or before a cut-off is one backward seek, and a start group's window is one
      // range per boat (see store/fixes.ts). No foreign keys: they would cost a lookup
      // per inserted row on a table that takes a million rows per race.
      `CREATE TABLE IF NOT EXISTS fixes (
        start_group_id ${ID},
        entry_id ${ID},
        t BIGINT NOT NULL COMMENT 'sample time, epoch milliseconds',
        lat DOUBLE NOT NULL,
        lon DOUBLE NOT NULL,
        sog_kn DOUBLE NULL COMMENT 'NULL when the phone did not report it',
        cog_deg DOUBLE NULL COMMENT 'NULL when the phone did not report it',
        accuracy_m DOUBLE NULL COMMENT 'private: stored, never served',
        PRIMARY KEY (start_group_id, entry_id, t)
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 2,
    name: "token signing keys",
    statements: [
      // Kept in the database so every instance signs and verifies with the same keys.
      `CREATE TABLE IF NOT EXISTS signing_keys (
        kid CHAR(22) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
        alg VARCHAR(10) CHARACTER SET ascii NOT NULL,
        private_jwk TEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        public_jwk TEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) COMMENT 'the newest unretired key signs',
        retired_at DATETIME(3) NULL COMMENT 'tokens signed with a retired key are refused'
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 3,
    name: "live insights",
    statements: [
      // One row per race: when its insights were last generated, up to when detection
      // has covered the race, and the lease that lets one instance generate at a time.
      `CREATE TABLE IF NOT EXISTS insight_generations (
        race_id ${ID} PRIMARY KEY,
        generated_at DATETIME(3) NULL,
        data_as_of DATETIME(3) NULL COMMENT 'generated_at minus the event delay',
        covered_to DATETIME(3) NULL COMMENT 'detection has run up to here',
        lease_owner VARCHAR(64) CHARACTER SET ascii NULL,
        lease_until DATETIME(3) NULL,
        CONSTRAINT insight_generations_race FOREIGN KEY (race_id) REFERENCES races (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS insight_facts (
        race_id ${ID},
        fact_id CHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        at DATETIME(3) NOT NULL COMMENT 'when the underlying event happened',
        fact TEXT NOT NULL COMMENT 'the fact as JSON (src/insights/facts.ts)',
        PRIMARY KEY (race_id, fact_id),
        KEY insight_facts_time (race_id, at),
        CONSTRAINT insight_facts_race FOREIGN KEY (race_id) REFERENCES races (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS insight_texts (
        race_id ${ID},
        fact_id CHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        lang CHAR(2) CHARACTER SET ascii NOT NULL,
        text VARCHAR(400) NOT NULL,
        source ENUM('model', 'template') NOT NULL,
        PRIMARY KEY (race_id, fact_id, lang),
        CONSTRAINT insight_texts_fact FOREIGN KEY (race_id, fact_id) REFERENCES insight_facts (race_id, fact_id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      // Languages asked for in the last 10 minutes are phrased at each generation.
      `CREATE TABLE IF NOT EXISTS insight_languages (
        race_id ${ID},
        lang CHAR(2) CHARACTER SET ascii NOT NULL,
        requested_at DATETIME(3) NOT NULL,
        phrased_at DATETIME(3) NULL,
        PRIMARY KEY (race_id, lang),
        CONSTRAINT insight_languages_race FOREIGN KEY (race_id) REFERENCES races (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 4,
    name: "replication heartbeat",
    statements: [
      // One row, written on the primary every 250 ms by each instance that has a read
      // replica, and read on the replica: how old the newest beat there is, is how far
      // the replica lags (store/read-replica.ts). Works wherever rows replicate.
      `CREATE TABLE IF NOT EXISTS replication_heartbeat (
        id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
        beat_at DATETIME(3) NOT NULL COMMENT 'UTC_TIMESTAMP(3) of the primary at the newest beat'
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 5,
    name: "live ingest",
    statements: [
      // Tables of their own rather than new columns: MySQL 8 has no ADD COLUMN IF NOT
      // EXISTS, and every statement must be safe to run again.
      `CREATE TABLE IF NOT EXISTS club_ingest_limits (
        club_id ${ID} PRIMARY KEY,
        rate_limit_per_minute INT UNSIGNED NOT NULL COMMENT 'tracking:write (IngestService) bucket; no row = default 6000',
        CONSTRAINT club_ingest_limits_club FOREIGN KEY (club_id) REFERENCES clubs (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      // Raising an event's delay moves its track cut-off back, but windows served as
      // immutable under the shorter delay must stay as served: the newest settled time
      // under any earlier delay is kept here, and ingest refuses fixes before it.
      `CREATE TABLE IF NOT EXISTS event_settled_floors (
        event_id ${ID} PRIMARY KEY,
        settled_before_ms BIGINT NOT NULL COMMENT 'epoch ms: track windows ending before it may have been served as immutable',
        CONSTRAINT event_settled_floors_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 6,
    name: "browser origins",
    statements: [
      // The web origins (scheme://host[:port]) whose pages may read answers (CORS): a
      // club's apply to all its clients, a client's to it alone (auth/origins.ts).
      `CREATE TABLE IF NOT EXISTS club_origins (
        club_id ${ID},
        origin VARCHAR(300) CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'normalised: lower-case, no default port, no path',
        PRIMARY KEY (club_id, origin),
        CONSTRAINT club_origins_club FOREIGN KEY (club_id) REFERENCES clubs (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,

      `CREATE TABLE IF NOT EXISTS client_origins (
        api_client_id ${ID},
        origin VARCHAR(300) CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'normalised: lower-case, no default port, no path',
        PRIMARY KEY (api_client_id, origin),
        CONSTRAINT client_origins_client FOREIGN KEY (api_client_id) REFERENCES api_clients (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 7,
    name: "delay holds",
    statements: [
      // A shorter delay moves the settled edge later at once, while a batch checked under
      // the longer one may still be on its way to commit: readers keep the longer delay's
      // edge until `until_ms` (domain/track-window.ts, readerSlackMs).
      `CREATE TABLE IF NOT EXISTS event_delay_holds (
        event_id ${ID} PRIMARY KEY,
        delay_seconds INT UNSIGNED NOT NULL COMMENT 'the longest delay the event had before it was shortened',
        until_ms BIGINT NOT NULL COMMENT 'epoch ms: readers compute the settled edge from delay_seconds until then',
        CONSTRAINT event_delay_holds_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 8,
    name: "events whose tracks were readable",
    statements: [
      // A row once an event is published with tracking shared: from then on any of its
      // track windows may have been served as immutable, so recorded tracks may no longer
      // be loaded into it (LoadRecordedTracks), even after it is unshared.
      `CREATE TABLE IF NOT EXISTS event_tracks_readable (
        event_id ${ID} PRIMARY KEY,
        since DATETIME(3) NULL COMMENT 'when it was first published with tracking shared; NULL: before this was recorded',
        CONSTRAINT event_tracks_readable_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
      ) ${TABLE_OPTIONS}`,
      // What events did before this table is not known: every one counts as read.
      "INSERT IGNORE INTO event_tracks_readable (event_id, since) SELECT id, NULL FROM events",
    ],
  },
];
