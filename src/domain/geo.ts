// WGS84 position maths at race-course scale: distances, bearings, destination points
// and local metre offsets, as small pure functions.
//
// Everything uses a spherical Earth of mean radius. Against the WGS84 ellipsoid that
// errs by at most ~0.5 % of the distance: centimetres at the 50 m mark-rounding radius
// and a few metres across a whole course, well inside phone GPS noise.

export interface LatLon {
  lat: number;
  lon: number;
}

/** Offset of a point from a local origin, in metres (east and north). */
export interface LocalOffset {
  eastM: number;
  northM: number;
}

/** IUGG mean Earth radius: the sphere that best fits WGS84 on average. */
export const EARTH_RADIUS_M = 6_371_008.8;

const DEG = Math.PI / 180;
/** Metres per degree of latitude (and of longitude on the equator). */
const METRES_PER_DEGREE = EARTH_RADIUS_M * DEG;

export function toRadians(deg: number): number {
  return deg * DEG;
}

export function toDegrees(rad: number): number {
  return rad / DEG;
}

/** Degrees folded into [0, 360). */
export function normalizeDegrees(deg: number): number {
  const d = deg % 360;
  return d < 0 ? d + 360 : d;
}

/** Signed smallest turn from `fromDeg` to `toDeg`, in (-180, 180]; positive is clockwise. */
export function angleDifferenceDegrees(fromDeg: number, toDeg: number): number {
  const d = normalizeDegrees(toDeg - fromDeg);
  return d > 180 ? d - 360 : d;
}

/** Great-circle distance in metres. */
export function haversineDistanceM(a: LatLon, b: LatLon): number {
  const dLat = (b.lat - a.lat) * DEG;
  const dLon = (b.lon - a.lon) * DEG;
  const s1 = Math.sin(dLat / 2);
  const s2 = Math.sin(dLon / 2);
  const h = s1 * s1 + Math.cos(a.lat * DEG) * Math.cos(b.lat * DEG) * s2 * s2;
  // min() guards asin against rounding just above 1 for antipodal points.
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Distance on the local plane, the cosine taken once at the two points' mean latitude.
 * Within 1e-11 (relative) of haversine for the 10-50 m chords between fixes and 5e-8 at
 * 5 km (latitude 50), for one cosine instead of haversine's four sines and cosines and
 * an arcsine: the analytics take a few per fix, a million fixes per race.
 */
export function planeDistanceM(a: LatLon, b: LatLon): number {
  const northM = (b.lat - a.lat) * METRES_PER_DEGREE;
  let dLon = b.lon - a.lon;
  // Across the antimeridian the short way round; the sign does not matter once squared.
  if (dLon > 180) dLon -= 360;
  else if (dLon < -180) dLon += 360;
  const eastM = dLon * METRES_PER_DEGREE * Math.cos((a.lat + b.lat) * (DEG / 2));
  return Math.sqrt(northM * northM + eastM * eastM);
}

/** Initial great-circle bearing from a to b, degrees clockwise from true north in [0, 360). */
export function initialBearingDeg(a: LatLon, b: LatLon): number {
  const lat1 = a.lat * DEG;
  const lat2 = b.lat * DEG;
  const dLon = (b.lon - a.lon) * DEG;
  const y = Math.sin(dLon) * Math.cos(lat2);
  const x = Math.cos(lat1) * Math.sin(lat2) - Math.sin(lat1) * Math.cos(lat2) * Math.cos(dLon);
  return normalizeDegrees(Math.atan2(y, x) / DEG);
}

/** The point reached by sailing `distanceM` along a great circle starting on `bearingDeg`. */
export function destinationPoint(from: LatLon, bearingDeg: number, distanceM: number): LatLon {
  const angular = distanceM / EARTH_RADIUS_M;
  const bearing = bearingDeg * DEG;
  const lat1 = from.lat * DEG;
  const lon1 = from.lon * DEG;
  const sinLat2 = Math.sin(lat1) * Math.cos(angular) + Math.cos(lat1) * Math.sin(angular) * Math.cos(bearing);
  const lat2 = Math.asin(sinLat2);
  const lon2 = lon1 + Math.atan2(Math.sin(bearing) * Math.sin(angular) * Math.cos(lat1), Math.cos(angular) - Math.sin(lat1) * sinLat2);
  return { lat: lat2 / DEG, lon: normalizeLongitude(lon2 / DEG) };
}

/** Longitude folded into [-180, 180). */
export function normalizeLongitude(lon: number): number {
  return normalizeDegrees(lon + 180) - 180;
}

/**
 * Metres per degree of latitude and of longitude around `latDeg`. Hot loops use these
 * two factors directly to turn local metres into degrees without allocating.
 */
export function metresPerDegree(latDeg: number): { lat: number; lon: number } {
  return { lat: METRES_PER_DEGREE, lon: METRES_PER_DEGREE * Math.cos(latDeg * DEG) };
}

/**
 * The point `eastM`/`northM` metres from `origin` on the local tangent plane. Over a few
 * kilometres the flat-plane error is under 0.1 %, matching haversine to about a metre.
 */
export function offsetByMetres(origin: LatLon, eastM: number, northM: number): LatLon {
  const lonScale = METRES_PER_DEGREE * Math.cos(origin.lat * DEG);
  return { lat: origin.lat + northM / METRES_PER_DEGREE, lon: origin.lon + eastM / lonScale };
}

/** Inverse of `offsetByMetres`: where `point` lies from `origin`, in local metres. */
export function localOffsetM(origin: LatLon, point: LatLon): LocalOffset {
  const lonScale = METRES_PER_DEGREE * Math.cos(origin.lat * DEG);
  return {
    eastM: angleDifferenceDegrees(origin.lon, point.lon) * lonScale,
    northM: (point.lat - origin.lat) * METRES_PER_DEGREE,
  };
}
