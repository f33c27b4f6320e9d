// A triangle with reaches in a fresh southerly, and two start groups of six on a gated
// course, against the simulator's ground truth.

import { describeRaceAgainstTruth } from "./ground-truth-checks.js";

describeRaceAgainstTruth("triangle, 16 kn from 180, 10 boats", {
  seed: "gt-triangle",
  layout: "triangle",
  startGroups: 1,
  boatsPerGroup: 10,
  legLengthM: 1000,
  windDirectionDeg: 180,
  windSpeedKn: 16,
  overEarlyReturn: true,
  durationMinutes: 75,
});

describeRaceAgainstTruth("two start groups of 6, 10 kn from 320", {
  seed: "gt-groups",
  startGroups: 2,
  boatsPerGroup: 6,
  legLengthM: 1000,
  windDirectionDeg: 320,
  windSpeedKn: 10,
  overEarlyReturn: true,
  durationMinutes: 70,
});
