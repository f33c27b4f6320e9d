// Windward-leeward races against the simulator's ground truth: with a leeward gate in a
// moderate north-easterly, and with a single leeward mark in a light westerly, big fleet.

import { describeRaceAgainstTruth } from "./ground-truth-checks.js";

const SHORT = { startGroups: 1, overEarlyReturn: true, durationMinutes: 75 } as const;

describeRaceAgainstTruth("leeward gate, 12 kn from 040, 14 boats", {
  ...SHORT,
  seed: "gt-gates",
  boatsPerGroup: 14,
  legLengthM: 1200,
  windDirectionDeg: 40,
  windSpeedKn: 12,
});

describeRaceAgainstTruth("leeward mark, 7 kn from 270, 20 boats", {
  ...SHORT,
  seed: "gt-leeward",
  layout: "windwardLeeward",
  boatsPerGroup: 20,
  legLengthM: 1000,
  windDirectionDeg: 270,
  windSpeedKn: 7,
});
