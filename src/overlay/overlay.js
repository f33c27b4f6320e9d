// Race overlay starter: follows one live race through the race-api streams and draws it
// as a broadcast graphic. Plain JavaScript, no dependencies, no build step: copy it.
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
const groupId = settings.get("group");
if (settings.get("bg") === "transparent") document.documentElement.classList.add("transparent");

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const TRAIL_POINTS = 60;
const TRAIL_SECONDS = 180; // how much history the trails start with (one track page)
const TRAIL_STEP = 3; // keep every third 1 Hz sample
const TICKER_SECONDS = 7;
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
// then sends only what is newer. 429/503 say how long to wait (Retry-After).
// ---------------------------------------------------------------------------------

async function follow(path, onEvent) {
  let lastEventId = null;
  let refused = null; // the last token the API refused: the next attempt takes a new one
  for (;;) {
    let waitSeconds = 1;
    try {
      const bearer = await currentToken(refused);
      const headers = { authorization: `Bearer ${bearer}`, accept: "text/event-stream" };
      if (lastEventId) headers["last-event-id"] = lastEventId;
      const response = await fetch(`${api}${path}`, { headers, cache: "no-store" });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        const code = problem.code || `HTTP ${response.status}`;
        if (code === "API_TOKEN_INVALID") {
          refused = bearer; // the next attempt, a second from now, takes a new token
        } else if (response.status === 401 || response.status === 403 || response.status === 404) {
          // A refused client or scope, or an unknown race: reconnecting will not help.
          return showStatus(`${code}: check the token and race in the URL`);
        } else {
          showStatus(`${code}: retrying`);
          waitSeconds = Number(response.headers.get("retry-after")) || 5;
        }
      } else {
        showStatus(null);
        await readEvents(response.body, (event) => {
          if (event.id !== undefined) lastEventId = event.id;
          if (event.event !== "error") return onEvent(JSON.parse(event.data));
          const { code } = JSON.parse(event.data);
          // The token expired while the stream was open: carry on from lastEventId with a new one.
          if (code === "API_TOKEN_INVALID") refused = bearer;
          else showStatus(code);
        });
      }
    } catch (error) {
      if (error instanceof TokenProblem && error.retryAfter === undefined) return showStatus(error.message);
      // The network dropped, the server restarted, or CORS refused this page's origin.
      showStatus(error instanceof TokenProblem ? error.message : `Cannot reach ${api}: reconnecting`);
      waitSeconds = error.retryAfter || 2;
    }
    await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000));
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

// ---------------------------------------------------------------------------------
// The race: header, chart, live order and wind, redrawn on every live event.
// ---------------------------------------------------------------------------------

const trails = new Map(); // entryId -> [{ lat, lon }, ...], oldest first
let trailsSeeded = false;
const colors = new Map(); // entryId -> colour
let frame = null; // the chart's projection, fixed by the course and widened by the boats

function onLive(live) {
  const group =
    live.startGroups.find((g) => g.startGroupId === groupId) || live.startGroups.find((g) => g.state === "Started") || live.startGroups[0];
  $("race-name").textContent = live.name;
  $("group-name").textContent = group ? group.name : "";
  $("live-badge").hidden = !live.isLive;
  $("delay").textContent = live.delaySeconds > 0 ? `Delayed by ${live.delaySeconds} s` : "Not delayed";
  $("as-of").textContent = `Data as of ${clock(live.dataAsOf)}`;
  if (!group) return;
  if (!trailsSeeded) {
    trailsSeeded = true;
    seedTrails(group.startGroupId, live.dataAsOf);
  }
  for (const [i, boat] of group.boats.entries()) if (!colors.has(boat.entryId)) colors.set(boat.entryId, PALETTE[i % PALETTE.length]);
  drawChart(group);
  drawOrder(group);
  drawWind(group.wind);
}

function drawChart(group) {
  const marks = group.course.flatMap((step) => step.marks);
  frame = widen(frame, [...marks, ...group.boats]);
  if (!frame) return;

  const course = $("course");
  course.replaceChildren();
  const centres = [];
  for (const step of group.course) {
    const points = step.marks.map(project);
    centres.push(points.reduce(([x, y], [px, py]) => [x + px / points.length, y + py / points.length], [0, 0]));
    if (points.length === 2)
      course.append(svg("line", { x1: points[0][0], y1: points[0][1], x2: points[1][0], y2: points[1][1], class: `line ${step.kind}` }));
    for (const [i, [x, y]] of points.entries()) {
      course.append(
        svg("circle", { cx: x, cy: y, r: step.kind === "start" || step.kind === "finish" ? 5 : 9, class: `mark ${step.kind}` }),
      );
      if (i === 0) {
        const label = svg("text", { x: x + 14, y: y - 12, class: "mark-label" });
        label.textContent = step.kind === "start" ? "START" : step.kind === "finish" ? "FINISH" : step.label || step.marks[i].key;
        course.append(label);
      }
    }
  }
  course.prepend(svg("polyline", { points: centres.map((p) => p.join(",")).join(" "), class: "route" }));

  const trailLayer = $("trails");
  const boatLayer = $("boats");
  trailLayer.replaceChildren();
  boatLayer.replaceChildren();
  for (const boat of group.boats) {
    const [x, y] = project(boat);
    const trail = trails.get(boat.entryId) || [];
    const last = trail.at(-1);
    if (!last || last.lat !== boat.lat || last.lon !== boat.lon) trail.push({ lat: boat.lat, lon: boat.lon });
    trails.set(boat.entryId, trail.slice(-TRAIL_POINTS));
    const colour = colors.get(boat.entryId);
    trailLayer.append(svg("polyline", { points: trail.map((p) => project(p).join(",")).join(" "), class: "trail", stroke: colour }));
    const hull = svg("g", { class: "boat", transform: `translate(${x} ${y}) rotate(${boat.cogDeg ?? 0})`, "data-entry-id": boat.entryId });
    hull.append(svg("path", { d: "M0 -18 C8 -6 8 8 5.5 15 L-5.5 15 C-8 8 -8 -6 0 -18 Z", fill: colour }));
    boatLayer.append(hull);
    const label = svg("text", { x: x + 16, y: y + 5, class: "boat-label" });
    label.textContent = boat.sailNumber;
    boatLayer.append(label);
  }
}

function drawOrder(group) {
  const boats = new Map(group.boats.map((boat) => [boat.entryId, boat]));
  const rows = (group.liveOrder || []).filter((row) => boats.has(row.entryId)).slice(0, 10);
  $("order").replaceChildren(
    ...rows.map((row) => {
      const boat = boats.get(row.entryId);
      const item = document.createElement("li");
      item.className = row.rank === 1 ? "leader" : "";
      item.append(
        cell("rank", row.rank ?? "–"),
        cell("chip", ""),
        cell("sail", boat.sailNumber),
        cell("name", boat.boatName),
        cell("gap", row.finishTimeUtc ? "FIN" : row.rank === 1 ? "LEAD" : gap(row.deltaSeconds)),
      );
      item.querySelector(".chip").style.background = colors.get(row.entryId);
      return item;
    }),
  );
}

function drawWind(wind) {
  $("wind").hidden = !wind;
  if (!wind) return;
  // The arrow points where the wind blows to; twd is where it comes from.
  $("wind-arrow").setAttribute("transform", `rotate(${(wind.twd + 180) % 360})`);
  $("wind-speed").textContent = wind.tws === null ? "–" : `${wind.tws.toFixed(1)} kn`;
  $("wind-direction").textContent = `${String(wind.twd).padStart(3, "0")}°`;
}

/** The last few minutes of each boat's track (one track page), so trails show at once. */
async function seedTrails(startGroupId, dataAsOf) {
  const since = new Date(Date.parse(dataAsOf) - TRAIL_SECONDS * 1000).toISOString();
  const query = new URLSearchParams({ startGroupId, since });
  try {
    const response = await fetch(`${api}/api/v1/races/${encodeURIComponent(raceId)}/track?${query}`, {
      headers: { authorization: `Bearer ${await currentToken(null)}` },
    });
    if (!response.ok) return; // trails then grow from the stream alone
    const page = await response.json();
    for (const boat of page.boats) {
      const history = boat.t.map((_, i) => ({ lat: boat.lat[i], lon: boat.lon[i] })).filter((_, i) => i % TRAIL_STEP === 0);
      trails.set(boat.entryId, [...history, ...(trails.get(boat.entryId) || [])].slice(-TRAIL_POINTS));
    }
  } catch {
    // As above: the stream's positions alone.
  }
}

// ---------------------------------------------------------------------------------
// Insights ticker: newest first, one line at a time, in the language asked for.
// ---------------------------------------------------------------------------------

const KIND_LABELS = { leadChange: "LEAD", markRounding: "MARK", gain: "GAIN", finish: "FINISH", windShift: "WIND" };
let insights = [];
let tickerIndex = 0;

function onInsights(answer) {
  insights = answer.insights.slice(0, 10);
  tickerIndex = 0;
  showInsight();
}

function showInsight() {
  const insight = insights[tickerIndex % Math.max(insights.length, 1)];
  if (!insight) return;
  const text = $("ticker-text");
  text.classList.remove("enter");
  void text.offsetWidth; // restart the animation
  text.classList.add("enter");
  $("ticker-kind").textContent = KIND_LABELS[insight.kind] || "INSIGHT";
  text.textContent = insight.text;
  text.dataset.insightId = insight.id;
}

setInterval(() => {
  tickerIndex++;
  showInsight();
}, TICKER_SECONDS * 1000);

// ---------------------------------------------------------------------------------
// Small helpers.
// ---------------------------------------------------------------------------------

/** A bounding box around `points` (lat/lon), never smaller than the last one, so the chart does not jump. */
function widen(previous, points) {
  if (points.length === 0) return previous;
  const lats = points.map((p) => p.lat);
  const lons = points.map((p) => p.lon);
  const box = { south: Math.min(...lats), north: Math.max(...lats), west: Math.min(...lons), east: Math.max(...lons) };
  if (previous) {
    if (box.south >= previous.south && box.north <= previous.north && box.west >= previous.west && box.east <= previous.east)
      return previous;
    box.south = Math.min(box.south, previous.south);
    box.north = Math.max(box.north, previous.north);
    box.west = Math.min(box.west, previous.west);
    box.east = Math.max(box.east, previous.east);
  }
  // A degree of longitude is cos(latitude) of a degree of latitude.
  const cos = Math.cos((((box.south + box.north) / 2) * Math.PI) / 180);
  const width = Math.max((box.east - box.west) * cos, 1e-4);
  const height = Math.max(box.north - box.south, 1e-4);
  const scale = Math.min(880 / width, 540 / height);
  return { ...box, cos, scale, x0: 500 - (width * scale) / 2, y0: 320 - (height * scale) / 2 };
}

function project({ lat, lon }) {
  const x = frame.x0 + (lon - frame.west) * frame.cos * frame.scale;
  const y = frame.y0 + (frame.north - lat) * frame.scale;
  return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
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

function gap(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const whole = Math.round(seconds);
  return `+${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function clock(dateTime) {
  return `${new Date(dateTime).toISOString().slice(11, 19)} UTC`;
}

function showStatus(message) {
  $("status").hidden = !message;
  $("status").textContent = message || "";
}

if (!raceId || !(token || canRenew)) {
  showStatus("Open this page as /overlay/#race=RACE_ID&token=ACCESS_TOKEN (or &tokenUrl=URL, or &client=ID&secret=SECRET)");
} else {
  const race = encodeURIComponent(raceId);
  follow(`/api/v1/races/${race}/live/stream`, onLive);
  follow(`/api/v1/races/${race}/live/insights/stream?lang=${encodeURIComponent(lang)}`, onInsights);
}
