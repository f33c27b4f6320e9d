// Race overlay starter: follows one race through the race-api streams and draws it as a
// broadcast graphic, live or as a replay from a past moment. Plain JavaScript, no
// dependencies, no build step: copy it.
//
// Settings come from the URL fragment (#race=...&token=...), which the browser never
// sends to a server, so the token stays out of every access log.

const settings = new URLSearchParams(location.hash.slice(1));
const api = (settings.get("api") || location.origin).replace(/\/+$/, "");
const raceId = settings.get("race") || "";
const tokenUrl = settings.get("tokenUrl");
const clientId = settings.get("client");
const clientSecret = settings.get("secret");
const lang = settings.get("lang") || "en";
/** Behind the leader in time (the analytics' timeBehindLeaderSeconds) or in metres (distanceBehindLeaderM). */
const gapMode = settings.get("gap") === "distance" ? "distance" : "time";
/** North at the top, or the committee's wind (where it comes from) at the top, as sailing broadcasts draw it. */
const windUp = settings.get("chart") === "wind-up";
/** Replay mode: the moment to start from (ISO 8601) and how fast to play (1-60 times real time). */
const replayFrom = settings.get("from");
const replaySpeed = Math.min(60, Math.max(1, Number(settings.get("speed")) || 1));
let groupId = settings.get("group");
if (settings.get("bg") === "transparent") document.documentElement.classList.add("transparent");

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const TRAIL_POINTS = 60;
const TRAIL_SECONDS = 180; // how much history the trails start with (one track page)
const TRAIL_STEP = 3; // keep every third 1 Hz sample
const TICKER_SECONDS = 7;
/**
 * How long a boat wears its TACK or GYBE marker, counted from the manoeuvre's time. The
 * analytics report a manoeuvre once its loss is known, 30 s after its end, so this
 * leaves it on screen for about half a minute.
 */
const MANOEUVRE_MARKER_SECONDS = 75;
/** In a replay, the analytics at the replay's moment are asked for at most this often (the tracking bucket holds 120 calls a minute). */
const PAST_ANALYTICS_INTERVAL_MS = 1500;
/** A replayed state this close to the live cut-off is live: the stream has caught up. */
const CAUGHT_UP_MS = 5000;
/** The timeline starts this long before the gun: the capture window's start. */
const WINDOW_BEFORE_GUN_MS = 5 * 60_000;
const REPLAY_STEP_MS = 2000; // the replay's grid: one state per 2 s of race time
const PALETTE = [
  "#ffd23f",
  "#3fa7ff",
  "#ff5d73",
  "#46e0a4",
  "#c084fc",
  "#ff9f43",
  "#5ee7ff",
  "#f472b6",
  "#a3e635",
  "#fb7185",
  "#93c5fd",
  "#fde68a",
];

// ---------------------------------------------------------------------------------
// Tokens. A token lasts an hour, and a broadcast lasts longer: a page that knows where
// to get tokens (its own site's tokenUrl, or a read-only client's credentials) fetches
// a new one whenever the API refuses the one it holds (expired, or its key retired).
// A page given only a token says so once it stops working.
// ---------------------------------------------------------------------------------

let token = settings.get("token") || "";
let renewal = null; // the token request in flight, shared by both streams
const canRenew = Boolean(tokenUrl || (clientId && clientSecret));

/** The token to send: the one held, or a new one when that is the token the API just refused. */
async function currentToken(refused) {
  if (token && token !== refused) return token;
  if (!canRenew) throw new TokenProblem("API_TOKEN_INVALID: the token has expired or was revoked; open the page with a new one");
  renewal ??= fetchToken().finally(() => {
    renewal = null;
  });
  return renewal;
}

/** From the page's own site (which keeps the secret), or from the API's token endpoint. */
async function fetchToken() {
  const url = tokenUrl || `${api}/api/v1/oauth/token`;
  // To the token endpoint, a form body and no Authorization header: a simple CORS request, no preflight.
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  const response = await fetch(url, tokenUrl ? { cache: "no-store" } : { method: "POST", body: form }).catch(() => {
    throw new TokenProblem(`Cannot reach ${url}: asking for a token again`, 2);
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok || typeof answer.access_token !== "string") {
    const code = answer.code || answer.error || `HTTP ${response.status}`;
    // A busy or unavailable endpoint says when to ask again; anything else (wrong
    // credentials, a tokenUrl that is not one) stays wrong until the settings change.
    if (response.status === 429 || response.status >= 500)
      throw new TokenProblem(`${code}: asking for a token again`, Number(response.headers.get("retry-after")) || 5);
    throw new TokenProblem(`${code}: check the page's token settings`);
  }
  token = answer.access_token;
  return token;
}

class TokenProblem extends Error {
  /** `retryAfter` seconds when asking again may help; undefined when it will not. */
  constructor(message, retryAfter) {
    super(message);
    this.retryAfter = retryAfter;
  }
}

// ---------------------------------------------------------------------------------
// Streams: fetch with a streaming body reader, since EventSource cannot send the
// token in a header. After a drop, reconnect with the last event id seen: the server
// then sends only what is newer (a replay goes on from the next moment). 429/503 say
// how long to wait (Retry-After). `signal` ends the stream for good (a replay seeks).
// ---------------------------------------------------------------------------------

async function follow(path, onEvent, signal) {
  let lastEventId = null;
  let refused = null; // the last token the API refused: the next attempt takes a new one
  while (!signal?.aborted) {
    let waitSeconds = 1;
    try {
      const bearer = await currentToken(refused);
      const headers = { authorization: `Bearer ${bearer}`, accept: "text/event-stream" };
      if (lastEventId) headers["last-event-id"] = lastEventId;
      const response = await fetch(`${api}${path}`, { headers, cache: "no-store", signal });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        const code = problem.code || `HTTP ${response.status}`;
        if (code === "API_TOKEN_INVALID") {
          refused = bearer; // the next attempt, a second from now, takes a new token
        } else if (response.status === 401 || response.status === 403 || response.status === 404) {
          // A refused client or scope, or an unknown race: reconnecting will not help.
          return showStatus(`${code}: check the token and race in the URL`);
        } else if (response.status === 400) {
          return showStatus(`${code}: ${problem.detail || "check the page's settings"}`);
        } else {
          showStatus(`${code}: retrying`);
          waitSeconds = Number(response.headers.get("retry-after")) || 5;
        }
      } else {
        showStatus(null);
        await readEvents(response.body, (event) => {
          if (signal?.aborted) return;
          if (event.id !== undefined) lastEventId = event.id;
          if (event.event !== "error") return onEvent(JSON.parse(event.data));
          const { code } = JSON.parse(event.data);
          // The token expired while the stream was open: carry on from lastEventId with a new one.
          if (code === "API_TOKEN_INVALID") refused = bearer;
          else showStatus(code);
        });
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof TokenProblem && error.retryAfter === undefined) return showStatus(error.message);
      // The network dropped, the server restarted, or CORS refused this page's origin.
      showStatus(error instanceof TokenProblem ? error.message : `Cannot reach ${api}: reconnecting`);
      waitSeconds = error.retryAfter || 2;
    }
    await sleep(waitSeconds * 1000);
  }
}

/** Reads Server-Sent Events from a response body: one call of `onEvent` per event (comments are heartbeats). */
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = {};
      for (const line of buffer.slice(0, end).split("\n")) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue; // a comment (": heartbeat") or nothing
        const field = line.slice(0, colon);
        const text = line.slice(colon + 1).replace(/^ /, "");
        event[field] = field === "data" && event.data !== undefined ? `${event.data}\n${text}` : text;
      }
      buffer = buffer.slice(end + 2);
      if (event.data !== undefined) onEvent(event);
    }
  }
}

/** One JSON answer of the API with the page's token (a new one if the API refused it), or null when it failed. */
async function getJson(path, signal) {
  let bearer = await currentToken(null);
  let response = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${bearer}` }, signal });
  if (response.status === 401 && canRenew) {
    const problem = await response.json().catch(() => ({}));
    if (problem.code !== "API_TOKEN_INVALID") return { ok: false, status: 401, problem };
    bearer = await currentToken(bearer);
    response = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${bearer}` }, signal });
  }
  const body = await response.json().catch(() => ({}));
  return response.ok
    ? { ok: true, body }
    : { ok: false, status: response.status, problem: body, retryAfter: Number(response.headers.get("retry-after")) || 0 };
}

// ---------------------------------------------------------------------------------
// What the page follows: the live stream, or a replay (the live stream from a past
// moment at a speed) that catches up into live. A seek ends the open one and starts
// another; whatever arrives for an ended one is dropped.
// ---------------------------------------------------------------------------------

const race = encodeURIComponent(raceId);
const view = { live: null, group: null, analytics: null };
let session = null;

function openSession(fromMs) {
  session?.controller.abort();
  const s = { controller: new AbortController(), fromMs, caughtUp: fromMs === null, analyticsOpen: false, wantedAt: null, pumping: false };
  session = s;
  view.analytics = null;
  // The figures were of a moment no longer followed: off the screen now, not at the next state.
  drawProgress(null);
  resetTrails();
  const query = fromMs === null ? "" : `?${new URLSearchParams({ from: new Date(fromMs).toISOString(), speed: String(replaySpeed) })}`;
  // When this replay was asked for, for a reader of the page (a test) to hold its clock against.
  $("scrubber").dataset.openedAt = String(performance.now());
  follow(`/api/v1/races/${race}/live/stream${query}`, (live) => onLive(live, s), s.controller.signal);
}

function onLive(live, s) {
  if (s !== session) return;
  const group =
    live.startGroups.find((g) => g.startGroupId === groupId) || live.startGroups.find((g) => g.state === "Started") || live.startGroups[0];
  // The group is chosen once: a replay from before the gun has none started yet.
  if (group && !groupId) groupId = group.startGroupId;
  view.live = live;
  view.group = group;
  if (!s.caughtUp && Date.parse(live.dataAsOf) >= Date.now() - live.delaySeconds * 1000 - CAUGHT_UP_MS) s.caughtUp = true;
  if (group) {
    if (!trailsSeeded) {
      trailsSeeded = true;
      seedTrails(group.startGroupId, live.dataAsOf, s);
    }
    if (s.caughtUp) openLiveAnalytics(s);
    else wantAnalyticsAt(live.dataAsOf, s);
  }
  render();
}

/** Live (or caught up): the analytics stream, the answer each time it changes. */
function openLiveAnalytics(s) {
  if (s.analyticsOpen) return;
  s.analyticsOpen = true;
  const query = new URLSearchParams({ startGroupId: groupId });
  follow(`/api/v1/races/${race}/analytics/stream?${query}`, (answer) => onAnalytics(answer, s), s.controller.signal);
}

/**
 * Replaying: the analytics at the replayed moment (?at=), the newest moment asked for
 * when the last answer is in, and no more often than the bucket allows. An `at` the
 * API refuses as not yet past means the replay has caught up: the stream takes over.
 */
function wantAnalyticsAt(dataAsOf, s) {
  s.wantedAt = dataAsOf;
  if (!s.pumping) pumpPastAnalytics(s);
}

async function pumpPastAnalytics(s) {
  s.pumping = true;
  while (s.wantedAt && s === session && !s.caughtUp) {
    const query = new URLSearchParams({ startGroupId: groupId, at: s.wantedAt });
    s.wantedAt = null;
    const began = Date.now();
    const answer = await getJson(`/api/v1/races/${race}/analytics?${query}`, s.controller.signal).catch(() => null);
    if (s !== session) break;
    if (answer?.ok) onAnalytics(answer.body, s);
    else if (answer?.status === 400 && answer.problem.code === "API_PARAM_INVALID") {
      s.caughtUp = true;
      openLiveAnalytics(s);
    }
    await sleep(Math.max(PAST_ANALYTICS_INTERVAL_MS - (Date.now() - began), (answer?.retryAfter || 0) * 1000));
  }
  s.pumping = false;
}

function onAnalytics(answer, s) {
  if (s !== session || answer.startGroupId !== groupId) return;
  view.analytics = answer;
  render();
}

// ---------------------------------------------------------------------------------
// The race: header, chart, the two orders and the wind, redrawn on every state.
// ---------------------------------------------------------------------------------

const trails = new Map(); // entryId -> [{ lat, lon }, ...], oldest first
let trailsSeeded = false;
const colors = new Map(); // entryId -> colour
let frame = null; // the chart's projection, fixed by the course and widened by the boats

function resetTrails() {
  trails.clear();
  trailsSeeded = false;
}

function render() {
  const { live, group, analytics } = view;
  if (!live) return;
  $("race-name").textContent = live.name;
  $("group-name").textContent = group ? group.name : "";
  drawMode(live);
  $("delay").textContent = live.delaySeconds > 0 ? `Delayed by ${live.delaySeconds} s` : "Not delayed";
  $("as-of").textContent = `Data as of ${clock(live.dataAsOf)}`;
  updateTimeline();
  if (!group) return;
  for (const [i, boat] of group.boats.entries()) if (!colors.has(boat.entryId)) colors.set(boat.entryId, PALETTE[i % PALETTE.length]);
  const figures = new Map((analytics?.boats || []).map((boat) => [boat.entryId, boat]));
  const rotation = windUp && group.wind ? group.wind.twd : 0;
  drawChart(group, figures, analytics, rotation);
  drawProgress(analytics);
  drawOrder(group, figures);
  drawWind(group.wind, rotation);
  const rows = Math.max(analytics?.boats.length || 0, group.liveOrder?.length || 0, 1);
  $("tables").style.setProperty("--rows", String(rows));
  showInsight();
}

function drawMode(live) {
  const replaying = session && !session.caughtUp;
  const badge = $("mode-badge");
  badge.hidden = !replaying && !live.isLive;
  badge.textContent = replaying ? `REPLAY ${replaySpeed}×` : "LIVE";
  badge.classList.toggle("replay", Boolean(replaying));
}

/** Where a boat wears the TACK/GYBE marker: a manoeuvre within MANOEUVRE_MARKER_SECONDS of the analytics' moment. */
function recentManoeuvre(figure, analytics) {
  const manoeuvre = figure?.lastManoeuvre;
  if (!manoeuvre || !analytics) return null;
  const age = (Date.parse(analytics.dataAsOf) - Date.parse(manoeuvre.atUtc)) / 1000;
  return age >= 0 && age <= MANOEUVRE_MARKER_SECONDS ? MANOEUVRE_WORDS[manoeuvre.kind] || null : null;
}

const MANOEUVRE_WORDS = { tack: "TACK", gybe: "GYBE", penaltyTurn: "PENALTY" };

function drawChart(group, figures, analytics, rotation) {
  const marks = group.course.flatMap((step) => step.marks);
  frame = widen(frame, [...marks, ...group.boats], rotation);
  if (!frame) return;

  const course = $("course");
  course.replaceChildren();
  const centres = [];
  const labels = []; // what gets a label, most important first
  const dots = []; // the marks' dots, which no label may cover
  const labelled = new Set();
  for (const step of group.course) {
    const points = step.marks.map(project);
    centres.push(points.reduce(([x, y], [px, py]) => [x + px / points.length, y + py / points.length], [0, 0]));
    if (points.length === 2)
      course.append(svg("line", { x1: points[0][0], y1: points[0][1], x2: points[1][0], y2: points[1][1], class: `line ${step.kind}` }));
    const r = step.kind === "start" || step.kind === "finish" ? 5 : 9;
    for (const [x, y] of points) {
      course.append(svg("circle", { cx: x, cy: y, r, class: `mark ${step.kind}` }));
      dots.push(box(x - r, y - r, 2 * r, 2 * r));
    }
    // A mark rounded on every lap comes once per lap in the course: one label is enough.
    const text = step.kind === "start" ? "START" : step.kind === "finish" ? "FINISH" : step.label || step.marks[0].key;
    const key = `${text}@${points[0].join(",")}`;
    if (!labelled.has(key)) labels.push({ anchor: points[0], radius: r + 3, text, className: "mark-label" });
    labelled.add(key);
  }
  course.prepend(svg("polyline", { points: centres.map((p) => p.join(",")).join(" "), class: "route" }));

  const trailLayer = $("trails");
  const boatLayer = $("boats");
  trailLayer.replaceChildren();
  boatLayer.replaceChildren();
  const hulls = [];
  const boatLabels = [];
  for (const boat of group.boats) {
    const [x, y] = project(boat);
    const trail = trails.get(boat.entryId) || [];
    const last = trail.at(-1);
    if (!last || last.lat !== boat.lat || last.lon !== boat.lon) trail.push({ lat: boat.lat, lon: boat.lon });
    trails.set(boat.entryId, trail.slice(-TRAIL_POINTS));
    const figure = figures.get(boat.entryId);
    const stale = figure?.stale === true;
    const manoeuvre = recentManoeuvre(figure, analytics);
    const colour = stale ? "#7d8896" : colors.get(boat.entryId);
    trailLayer.append(
      svg("polyline", { points: trail.map((p) => project(p).join(",")).join(" "), class: `trail${stale ? " stale" : ""}`, stroke: colour }),
    );
    const hull = svg("g", {
      class: `boat${stale ? " stale" : ""}${manoeuvre ? " manoeuvring" : ""}`,
      transform: `translate(${x} ${y})`,
      "data-entry-id": boat.entryId,
    });
    if (manoeuvre) hull.append(svg("circle", { r: 21, class: "manoeuvre-ring" }));
    const shape = svg("path", { d: "M0 -18 C8 -6 8 8 5.5 15 L-5.5 15 C-8 8 -8 -6 0 -18 Z", fill: colour });
    shape.setAttribute("transform", `rotate(${(boat.cogDeg ?? 0) - rotation})`);
    hull.append(shape);
    boatLayer.append(hull);
    hulls.push(box(x - 14, y - 14, 28, 28));
    boatLabels.push({
      anchor: [x, y],
      radius: manoeuvre ? 23 : 17,
      text: boat.sailNumber,
      tag: manoeuvre,
      className: `boat-label${stale ? " stale" : ""}`,
      entryId: boat.entryId,
      rank: figure?.progressRank ?? Number.MAX_SAFE_INTEGER,
    });
  }
  // Leaders first: when space is short, they keep the place beside their boat.
  boatLabels.sort((a, b) => a.rank - b.rank);
  drawLabels([...labels, ...boatLabels], dots, hulls);
}

/**
 * Labels that never sit on one another or on a mark's dot: each tries places around its
 * dot or boat, nearest first (right, above and below right, left, ..., then further out
 * with a leader line), and takes the first that is free. Boats are avoided too when a
 * place allows it. Measured in the chart's own units, so it holds at any size.
 */
function drawLabels(items, dots, hulls) {
  const layer = $("labels");
  const leaders = $("leaders");
  layer.replaceChildren();
  leaders.replaceChildren();
  const placed = [];
  const bounds = box(4, 4, 992, 632);
  for (const item of items) {
    const text = svg("text", { x: 0, y: 0, class: item.className });
    text.textContent = item.text;
    if (item.tag) {
      const tag = svg("tspan", { class: "manoeuvre-tag", dx: 6 });
      tag.textContent = item.tag;
      text.append(tag);
    }
    if (item.entryId) text.dataset.entryId = item.entryId;
    layer.append(text);
    const measured = text.getBBox();
    let chosen = null;
    let fallback = null;
    for (const [candidate, far] of candidates(item.anchor, item.radius, measured.width + 4, measured.height + 2)) {
      if (!contains(bounds, candidate) || placed.some((b) => intersects(b, candidate)) || dots.some((b) => intersects(b, candidate)))
        continue;
      fallback ??= [candidate, far];
      if (!hulls.some((b) => intersects(b, candidate))) {
        chosen = [candidate, far];
        break;
      }
    }
    chosen ??= fallback;
    if (!chosen) continue; // nowhere free: better no label than one on top of another
    const [spot, far] = chosen;
    placed.push(spot);
    text.setAttribute("x", String(round(spot.x + 2 - measured.x)));
    text.setAttribute("y", String(round(spot.y + 1 - measured.y)));
    if (far) {
      const [ax, ay] = item.anchor;
      const nx = Math.min(Math.max(ax, spot.x), spot.x + spot.w);
      const ny = Math.min(Math.max(ay, spot.y), spot.y + spot.h);
      leaders.append(svg("line", { x1: ax, y1: ay, x2: round(nx), y2: round(ny), class: "leader-line" }));
    }
  }
}

/** Places for a w x h label around a dot of `radius`: 8 directions, ring by ring; `far` ones need a leader line. */
function* candidates([ax, ay], radius, w, h) {
  for (const extra of [0, 16, 34, 56, 84, 120, 165, 220]) {
    const r = radius + extra;
    const d = r * 0.72;
    const places = [
      [ax + r, ay - h / 2],
      [ax + d, ay - d - h],
      [ax + d, ay + d],
      [ax - r - w, ay - h / 2],
      [ax - d - w, ay - d - h],
      [ax - d - w, ay + d],
      [ax - w / 2, ay - r - h],
      [ax - w / 2, ay + r],
    ];
    for (const [x, y] of places) yield [box(x, y, w, h), extra > 0];
  }
}

function drawProgress(analytics) {
  const list = $("progress");
  list.dataset.asOf = analytics?.dataAsOf || "";
  if (!analytics) return list.replaceChildren();
  list.replaceChildren(
    ...analytics.boats.map((boat) => {
      const item = document.createElement("li");
      item.className = `${boat.progressRank === 1 ? "leader" : ""}${boat.stale ? " stale" : ""}`;
      item.dataset.entryId = boat.entryId;
      const manoeuvre = recentManoeuvre(boat, analytics);
      const sail = cell("sail", boat.sailNumber);
      if (manoeuvre) sail.append(cell("manoeuvre-tag", manoeuvre));
      item.append(
        cell("rank", boat.progressRank ?? "–"),
        cell("chip", ""),
        sail,
        cell("leg", legText(boat)),
        cell("gap", behindText(boat)),
        cell("sog", knots(boat.sogKn)),
        cell("vmg", knots(boat.vmgKn)),
      );
      item.querySelector(".chip").style.background = boat.stale ? "#7d8896" : colors.get(boat.entryId) || "#7d8896";
      item.title = boat.boatName;
      return item;
    }),
  );
}

function drawOrder(group, figures) {
  const names = new Map([...figures.values(), ...group.boats].map((boat) => [boat.entryId, boat.sailNumber]));
  // A boat racing without a phone is on the leaderboard but not in the live answer, which
  // is where names come from: it keeps its place, unnamed.
  const rows = group.liveOrder || [];
  const list = $("order");
  list.dataset.asOf = view.live.dataAsOf;
  list.replaceChildren(
    ...rows.map((row) => {
      const item = document.createElement("li");
      item.className = row.rank === 1 ? "leader" : "";
      item.dataset.entryId = row.entryId;
      item.append(
        cell("rank", row.rank ?? "–"),
        cell("chip", ""),
        names.has(row.entryId) ? cell("sail", names.get(row.entryId)) : cell("sail untracked", "no tracker"),
        cell("gap", row.finishTimeUtc ? "FIN" : row.rank === 1 ? "LEAD" : gap(row.deltaSeconds)),
      );
      item.querySelector(".chip").style.background = colors.get(row.entryId) || "#7d8896";
      return item;
    }),
  );
  $("order-empty").hidden = rows.length > 0;
}

function drawWind(wind, rotation) {
  $("north-arrow").setAttribute("transform", `rotate(${-rotation})`);
  $("orientation").textContent = windUp ? "WIND UP" : "NORTH UP";
  $("wind").hidden = !wind;
  if (!wind) return;
  // The arrow points where the wind blows to; twd is where it comes from. Wind-up: straight down.
  $("wind-arrow").setAttribute("transform", `rotate(${(((wind.twd + 180 - rotation) % 360) + 360) % 360})`);
  $("wind-speed").textContent = wind.tws === null ? "–" : `${wind.tws.toFixed(1)} kn`;
  $("wind-direction").textContent = `${String(wind.twd === 0 ? 360 : wind.twd).padStart(3, "0")}°`;
}

/** The last few minutes of each boat's track up to the moment shown (one track page), so trails show at once. */
async function seedTrails(startGroupId, dataAsOf, s) {
  const until = Date.parse(dataAsOf);
  const query = new URLSearchParams({ startGroupId, since: new Date(until - TRAIL_SECONDS * 1000).toISOString() });
  if (!s.caughtUp) query.set("until", new Date(until + 1).toISOString());
  const answer = await getJson(`/api/v1/races/${race}/track?${query}`, s.controller.signal).catch(() => null);
  if (!answer?.ok || s !== session) return; // trails then grow from the stream alone
  for (const boat of answer.body.boats) {
    const history = boat.t.map((_, i) => ({ lat: boat.lat[i], lon: boat.lon[i] })).filter((_, i) => i % TRAIL_STEP === 0);
    trails.set(boat.entryId, [...history, ...(trails.get(boat.entryId) || [])].slice(-TRAIL_POINTS));
  }
}

// ---------------------------------------------------------------------------------
// Replay timeline: the replay clock, and a slider from the capture window's start to
// the live cut-off that a person drags; letting go reopens the stream from there.
// ---------------------------------------------------------------------------------

let dragging = false;

function setUpTimeline() {
  const scrubber = $("scrubber");
  $("timeline").hidden = false;
  document.querySelector(".overlay").classList.add("replaying");
  scrubber.addEventListener("pointerdown", () => {
    dragging = true;
  });
  // A press let go without moving the thumb sends no change: the clock must still go on.
  for (const ended of ["pointerup", "pointercancel"]) {
    window.addEventListener(ended, () => {
      dragging = false;
    });
  }
  scrubber.addEventListener("input", () => {
    dragging = true;
    $("replay-clock").textContent = clock(Number(scrubber.value));
  });
  scrubber.addEventListener("change", () => {
    dragging = false;
    seek(Number(scrubber.value));
  });
  setInterval(updateTimeline, 1000);
}

function seek(ms) {
  const cutOff = liveCutOff();
  openSession(cutOff === null ? ms : Math.min(ms, cutOff - REPLAY_STEP_MS));
  $("scrubber").dataset.seekedTo = new Date(ms).toISOString();
}

/** Now minus the delay: where live is (estimated with this machine's clock). */
function liveCutOff() {
  return view.live ? Date.now() - view.live.delaySeconds * 1000 : null;
}

function updateTimeline() {
  if (!replayFrom || !view.live || dragging) return;
  const scrubber = $("scrubber");
  const shown = Date.parse(view.live.dataAsOf);
  const gun = view.group?.startTimeUtc ? Date.parse(view.group.startTimeUtc) : shown;
  const start = Math.min(gun - WINDOW_BEFORE_GUN_MS, shown, session.fromMs ?? shown);
  scrubber.min = String(start);
  scrubber.max = String(Math.max(liveCutOff(), shown));
  scrubber.value = String(shown);
  scrubber.style.setProperty("--played", `${(100 * (shown - start)) / Math.max(1, Number(scrubber.max) - start)}%`);
  $("replay-clock").textContent = clock(shown);
  $("replay-clock").dataset.at = view.live.dataAsOf;
  const behind = Math.max(0, Math.round((liveCutOff() - shown) / 1000));
  $("behind-live").textContent = session.caughtUp ? "LIVE" : `−${duration(behind)} behind live`;
}

// ---------------------------------------------------------------------------------
// Insights ticker: the selected start group's lines only, newest first, one at a time,
// in the language asked for. In a replay, only lines from before the replayed moment.
// ---------------------------------------------------------------------------------

const KIND_LABELS = { leadChange: "LEAD", markRounding: "MARK", gain: "GAIN", finish: "FINISH", windShift: "WIND" };
let insights = [];
let tickerIndex = 0;

function onInsights(answer) {
  insights = answer.insights;
  tickerIndex = 0;
  showInsight();
}

/** The lines the ticker may show now. */
function tickerLines() {
  if (!groupId || !view.live) return [];
  const replaying = session && !session.caughtUp;
  const moment = Date.parse(view.live.dataAsOf);
  return insights.filter((line) => line.startGroupId === groupId && (!replaying || Date.parse(line.atUtc) <= moment)).slice(0, 10);
}

function showInsight() {
  const lines = tickerLines();
  const text = $("ticker-text");
  const insight = lines[tickerIndex % Math.max(lines.length, 1)];
  if (!insight) {
    delete text.dataset.insightId;
    $("ticker-kind").textContent = "INSIGHTS";
    text.textContent = view.live ? "No commentary for this moment yet" : "Waiting for the first insight…";
    return;
  }
  if (text.dataset.insightId === insight.id) return;
  text.classList.remove("enter");
  void text.offsetWidth; // restart the animation
  text.classList.add("enter");
  $("ticker-kind").textContent = KIND_LABELS[insight.kind] || "INSIGHT";
  text.textContent = insight.text;
  text.dataset.insightId = insight.id;
  text.dataset.startGroupId = insight.startGroupId;
}

setInterval(() => {
  tickerIndex++;
  showInsight();
}, TICKER_SECONDS * 1000);

// ---------------------------------------------------------------------------------
// Small helpers.
// ---------------------------------------------------------------------------------

/**
 * The chart's projection: metres east and north of the course's middle (a degree of
 * longitude is cos(latitude) of a degree of latitude), turned by `rotation` (the wind's
 * direction when wind-up), fitted to the chart. The box never shrinks, so the chart
 * does not jump; a new rotation starts a new one.
 */
function widen(previous, points, rotation) {
  if (points.length === 0) return previous;
  let origin = previous;
  if (!origin) {
    const lat = points.reduce((sum, p) => sum + p.lat, 0) / points.length;
    const lon = points.reduce((sum, p) => sum + p.lon, 0) / points.length;
    origin = { lat, lon, cos: Math.cos((lat * Math.PI) / 180) };
  }
  const turned = { lat: origin.lat, lon: origin.lon, cos: origin.cos, rotation, sin: Math.sin((rotation * Math.PI) / 180) };
  turned.cosR = Math.cos((rotation * Math.PI) / 180);
  const local = points.map((p) => turn(turned, p));
  const box = {
    west: Math.min(...local.map(([e]) => e)),
    east: Math.max(...local.map(([e]) => e)),
    south: Math.min(...local.map(([, n]) => n)),
    north: Math.max(...local.map(([, n]) => n)),
  };
  if (previous && previous.rotation === rotation) {
    const old = previous.box;
    if (box.south >= old.south && box.north <= old.north && box.west >= old.west && box.east <= old.east) return previous;
    box.south = Math.min(box.south, old.south);
    box.north = Math.max(box.north, old.north);
    box.west = Math.min(box.west, old.west);
    box.east = Math.max(box.east, old.east);
  }
  const width = Math.max(box.east - box.west, 1e-4);
  const height = Math.max(box.north - box.south, 1e-4);
  const scale = Math.min(880 / width, 540 / height);
  return { ...turned, box, scale, x0: 500 - (width * scale) / 2, y0: 320 - (height * scale) / 2 };
}

/** East and north of the origin in degrees of latitude, turned so that bearing `rotation` points up. */
function turn(f, { lat, lon }) {
  const e = (lon - f.lon) * f.cos;
  const n = lat - f.lat;
  return [e * f.cosR - n * f.sin, n * f.cosR + e * f.sin];
}

function project(point) {
  const [e, n] = turn(frame, point);
  return [round(frame.x0 + (e - frame.box.west) * frame.scale), round(frame.y0 + (frame.box.north - n) * frame.scale)];
}

function box(x, y, w, h) {
  return { x, y, w, h };
}

function intersects(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function contains(outer, inner) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

function round(value) {
  return Math.round(value * 10) / 10;
}

function svg(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

function cell(className, text) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  return span;
}

const LEG_WORDS = { upwind: "UP", downwind: "DOWN", reach: "REACH" };

/** "PRE" before the start, "FIN" after the finish, else the leg's number and kind ("2 UP"). */
function legText(boat) {
  if (boat.legIndex === null || boat.finishedAtUtc) return "FIN";
  if (boat.legIndex === 0) return "PRE";
  return `${boat.legIndex} ${LEG_WORDS[boat.legKind] || ""}`.trim();
}

function behindText(boat) {
  if (boat.progressRank === 1) return "LEAD";
  if (gapMode === "distance") return boat.distanceBehindLeaderM === null ? "–" : `+${Math.round(boat.distanceBehindLeaderM)} m`;
  return gap(boat.timeBehindLeaderSeconds);
}

function knots(value) {
  return value === null || value === undefined ? "–" : value.toFixed(1);
}

function gap(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  return `+${duration(Math.round(seconds))}`;
}

function duration(seconds) {
  const hours = Math.floor(seconds / 3600);
  const minutes = String(Math.floor((seconds % 3600) / 60));
  const rest = `${hours > 0 ? minutes.padStart(2, "0") : minutes}:${String(seconds % 60).padStart(2, "0")}`;
  return hours > 0 ? `${hours}:${rest}` : rest;
}

function clock(dateTime) {
  return `${new Date(dateTime).toISOString().slice(11, 19)} UTC`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function showStatus(message) {
  $("status").hidden = !message;
  $("status").textContent = message || "";
}

if (!raceId || !(token || canRenew)) {
  showStatus("Open this page as /overlay/#race=RACE_ID&token=ACCESS_TOKEN (or &tokenUrl=URL, or &client=ID&secret=SECRET)");
} else if (replayFrom !== null && Number.isNaN(Date.parse(replayFrom))) {
  showStatus(`from=${replayFrom}: give the replay's start as a time, e.g. from=2026-11-21T11:05:00Z`);
} else {
  follow(`/api/v1/races/${race}/live/insights/stream?lang=${encodeURIComponent(lang)}`, onInsights);
  if (replayFrom === null) openSession(null);
  else {
    setUpTimeline();
    openSession(Date.parse(replayFrom));
  }
}
