import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { GetTrackPageResponseSchema } from "../gen/racing/v1/track_pb.js";
import { stringifyTrackPage, trackPageJson } from "../src/gateway/track-json.js";
const T0 = 1_764_000_000_000;
function page(boats: number, fixes: number) {
  return create(GetTrackPageResponseSchema, {
    raceId: "6f1c2f4e-8a1b-4c3d-9e2f-123456789abc", startGroupId: "6f1c2f4e-8a1b-4c3d-9e2f-123456789abd",
    since: timestampFromMs(T0), until: timestampFromMs(T0 + fixes * 1000), delaySeconds: 0,
    boats: Array.from({ length: boats }, (_, b) => ({
      entryId: `6f1c2f4e-8a1b-4c3d-9e2f-1234567890${String(b).padStart(2, "0")}`, sailNumber: `GER ${b}`, boatName: `Boat ${b}`,
      t: Array.from({ length: fixes }, (_, i) => BigInt(T0 + i * 1000)),
      lat: Array.from({ length: fixes }, (_, i) => 54.3 + Math.sin(i+b) * 1e-2),
      lon: Array.from({ length: fixes }, (_, i) => 10.1 - Math.cos(i*b) * 1e-2),
      sogKn: Array.from({ length: fixes }, (_, i) => 5 + Math.sin(i) ),
      cogDeg: Array.from({ length: fixes }, (_, i) => (i * 3.7123) % 360),
    })),
  });
}
const p = page(50, 300);
const j = trackPageJson(p);
for (let r = 0; r < 3; r++) {
let t = performance.now(); for (let i=0;i<20;i++) JSON.stringify(j); const a=(performance.now()-t)/20;
t = performance.now(); for (let i=0;i<20;i++) stringifyTrackPage(j); const b=(performance.now()-t)/20;
t = performance.now(); for (let i=0;i<20;i++) Buffer.from(stringifyTrackPage(j)); const c=(performance.now()-t)/20;
t = performance.now(); for (let i=0;i<20;i++) Buffer.from(JSON.stringify(j)); const d=(performance.now()-t)/20;
t = performance.now(); for (let i=0;i<20;i++) trackPageJson(p); const e=(performance.now()-t)/20;
console.log({stringify:a.toFixed(2), memo:b.toFixed(2), memoBuf:c.toFixed(2), strBuf:d.toFixed(2), json:e.toFixed(2), len: JSON.stringify(j).length});
}
