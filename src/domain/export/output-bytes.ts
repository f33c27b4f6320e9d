// A file's bytes as a writer makes them: written straight into chunks of a fixed size,
// numbers and times digit by digit, so a million fixes make a few hundred chunks and no
// string per value. Each value is written exactly as JavaScript writes it
// (String(number), Date.prototype.toISOString), which the tests check. Pure.

/** Bytes of a chunk handed on; the last one of a file may be shorter. */
export const OUTPUT_CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();

/** ASCII text (a constant of a format) as bytes, made once. */
export function asciiBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: toISOString writes a 4-digit year between them. */
const FOUR_DIGIT_YEARS_MS = [-62_167_219_200_000, 253_402_300_799_999] as const;
/** Powers of ten that are exact doubles. */
const POWERS = Array.from({ length: 16 }, (_, k) => 10 ** k);
/** The fraction digits a decimal is first tried with: a position stored to 1e-7 degrees (1 cm), as phones give it. */
const FIRST_FRACTION_DIGITS = 7;
/** Below this many units of the last written digit, a decimal has at most 15 significant digits: one double reads back as it. */
const EXACT_DIGITS_BELOW = 1e15;

const ZERO = 48;
const MINUS = 45;
const DOT = 46;

/**
 * The chunks of a file. Every write makes room for itself, so a writer never counts;
 * `take` hands on the chunks filled so far.
 */
export class OutputBytes {
  private chunk: Uint8Array;
  private at = 0;
  private filled: Uint8Array[] = [];
  /** The day whose "YYYY-MM-DDT" is in `dayBytes`: a file's fixes fall on few days. */
  private day = Number.NaN;
  private readonly dayBytes = new Uint8Array(11);
  /** A decimal's digits, last first. */
  private readonly digits = new Uint8Array(16);

  constructor(private readonly chunkBytes = OUTPUT_CHUNK_BYTES) {
    this.chunk = new Uint8Array(chunkBytes);
  }

  /** The chunks filled so far (with the part-filled one when `end`), each handed on once. */
  take(end: boolean): Uint8Array[] {
    if (end && this.at > 0) {
      this.filled.push(this.chunk.subarray(0, this.at));
      this.chunk = new Uint8Array(this.chunkBytes);
      this.at = 0;
    }
    const taken = this.filled;
    this.filled = [];
    return taken;
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    if (text === "") return;
    this.room(text.length * 3);
    this.at += encoder.encodeInto(text, this.chunk.subarray(this.at)).written;
  }

  /** Bytes made once (asciiBytes). */
  bytes(bytes: Uint8Array): void {
    const length = bytes.length;
    this.room(length);
    const chunk = this.chunk;
    let at = this.at;
    // A loop beats set()'s call only for a few bytes (measured: 8 bytes, not 16 or 64).
    if (length <= 8) for (let i = 0; i < length; i++) chunk[at++] = bytes[i]!;
    else {
      chunk.set(bytes, at);
      at += length;
    }
    this.at = at;
  }

  /** One ASCII character by its code. */
  char(code: number): void {
    this.room(1);
    this.chunk[this.at++] = code;
  }

  /** `value` as String(value) writes it. */
  number(value: number): void {
    this.room(32);
    if (!this.decimal(value)) this.ascii(numberText(value));
  }

  /** An epoch-ms time as new Date(ms).toISOString() writes it ("2026-07-04T13:00:00.000Z"). */
  isoTime(ms: number): void {
    if (!Number.isInteger(ms) || ms < FOUR_DIGIT_YEARS_MS[0] || ms > FOUR_DIGIT_YEARS_MS[1]) {
      this.ascii(new Date(ms).toISOString());
      return;
    }
    const day = Math.floor(ms / DAY_MS);
    if (day !== this.day) this.setDay(day);
    this.room(24);
    const chunk = this.chunk;
    let at = this.at;
    for (let i = 0; i < 11; i++) chunk[at++] = this.dayBytes[i]!;
    // Below a day's 86,400,000 ms: integer arithmetic.
    let rest = (ms - day * DAY_MS) | 0;
    const milli = rest % 1000;
    rest = ((rest - milli) / 1000) | 0;
    const second = rest % 60;
    rest = ((rest - second) / 60) | 0;
    const minute = rest % 60;
    const hour = ((rest - minute) / 60) | 0;
    at = twoDigits(chunk, at, hour);
    chunk[at++] = 58; // :
    at = twoDigits(chunk, at, minute);
    chunk[at++] = 58;
    at = twoDigits(chunk, at, second);
    chunk[at++] = DOT;
    chunk[at++] = ZERO + ((milli / 100) | 0);
    at = twoDigits(chunk, at, milli % 100);
    chunk[at++] = 90; // Z
    this.at = at;
  }

  /** The day's "YYYY-MM-DDT" (Hinnant's days-to-civil, proleptic Gregorian as ECMAScript's dates are). */
  private setDay(day: number): void {
    const z = day + 719_468;
    const era = Math.floor(z / 146_097);
    const dayOfEra = z - era * 146_097;
    const yearOfEra = Math.floor(
      (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
    );
    const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
    const shifted = Math.floor((5 * dayOfYear + 2) / 153);
    const dayOfMonth = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
    const month = shifted < 10 ? shifted + 3 : shifted - 9;
    const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    const bytes = this.dayBytes;
    bytes[0] = ZERO + Math.floor(year / 1000);
    bytes[1] = ZERO + (Math.floor(year / 100) % 10);
    twoDigits(bytes, 2, year % 100);
    bytes[4] = MINUS;
    twoDigits(bytes, 5, month);
    bytes[7] = MINUS;
    twoDigits(bytes, 8, dayOfMonth);
    bytes[10] = 84; // T
    this.day = day;
  }

  /**
   * `value` in plain decimal notation with the fewest fraction digits that read back as
   * it, when that takes at most 15 significant digits and String() would not use an
   * exponent; false otherwise. With at most 15 digits only one decimal of k fraction
   * digits reads back as the double, so the one of fewest digits is what String()
   * writes; m / 10^k is correctly rounded, so it equals the double that reading
   * "m·10^-k" gives. Tried first with 7 fraction digits (a position's, and any fewer
   * padded with zeros, which are dropped), then with more.
   */
  private decimal(value: number): boolean {
    const magnitude = value < 0 ? -value : value;
    if (!(magnitude < EXACT_DIGITS_BELOW) || (magnitude < 1e-6 && magnitude !== 0)) return false;
    let fraction = FIRST_FRACTION_DIGITS;
    let units = Math.round(magnitude * POWERS[fraction]!);
    // Too large for 7 fraction digits within 15: from none up.
    if (units >= EXACT_DIGITS_BELOW) fraction = -1;
    else if (units / POWERS[fraction]! === magnitude) {
      this.writeDecimal(value < 0, units, fraction);
      return true;
    }
    // A decimal of fewer digits would have been found padded: only more can read back.
    while (++fraction < POWERS.length) {
      const power = POWERS[fraction]!;
      units = Math.round(magnitude * power);
      if (units >= EXACT_DIGITS_BELOW) return false;
      if (units / power === magnitude) {
        this.writeDecimal(value < 0, units, fraction);
        return true;
      }
    }
    return false;
  }

  /** units · 10^-fraction less its trailing zeros, the sign first, a leading "0." when below 1. */
  private writeDecimal(negative: boolean, units: number, fraction: number): void {
    // The digits, last first, from two parts below 10^8 each: integer arithmetic, not a double's remainder.
    const digits = this.digits;
    let count = 0;
    let high = Math.floor(units / 1e8) | 0;
    let low = (units - high * 1e8) | 0;
    do {
      const tenth = (low / 10) | 0;
      digits[count++] = low - tenth * 10;
      low = tenth;
    } while (low !== 0 || (high !== 0 && count < 8));
    while (high !== 0) {
      const tenth = (high / 10) | 0;
      digits[count++] = high - tenth * 10;
      high = tenth;
    }
    let last = 0;
    while (fraction > 0 && digits[last] === 0 && last < count - 1) {
      last++;
      fraction--;
    }
    if (units === 0) fraction = 0;
    const significant = count - last;
    const chunk = this.chunk;
    let at = this.at;
    if (negative) chunk[at++] = MINUS;
    if (significant <= fraction) {
      chunk[at++] = ZERO;
      chunk[at++] = DOT;
      for (let i = significant; i < fraction; i++) chunk[at++] = ZERO;
    }
    for (let i = count - 1; i >= last; i--) {
      if (i - last === fraction - 1 && significant > fraction) chunk[at++] = DOT;
      chunk[at++] = ZERO + digits[i]!;
    }
    this.at = at;
  }

  private ascii(text: string): void {
    this.room(text.length);
    const chunk = this.chunk;
    let at = this.at;
    for (let i = 0; i < text.length; i++) chunk[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** Room for `bytes` more in the current chunk. */
  private room(bytes: number): void {
    if (this.at + bytes > this.chunk.length) this.nextChunk(bytes);
  }

  /** The current chunk set aside for `take`, and a new one. */
  private nextChunk(bytes: number): void {
    if (this.at > 0) this.filled.push(this.chunk.subarray(0, this.at));
    this.chunk = new Uint8Array(Math.max(this.chunkBytes, bytes));
    this.at = 0;
  }
}

function twoDigits(bytes: Uint8Array, at: number, value: number): number {
  const tens = (value / 10) | 0;
  bytes[at] = ZERO + tens;
  bytes[at + 1] = ZERO + value - tens * 10;
  return at + 2;
}

/**
 * String(value) for the numbers `decimal` leaves (a speed converted to m/s has 16-17
 * digits), remembered in a small table by the value's bits: a file's values repeat
 * (speeds to 0.01 kn), and String() of a double costs about as much as writing a fix.
 */
const CACHE_SLOTS = 4096;
const cachedValues = new Float64Array(CACHE_SLOTS).fill(Number.NaN);
const cachedTexts: string[] = new Array(CACHE_SLOTS).fill("");
const bits = new Float64Array(1);
const words = new Int32Array(bits.buffer);

function numberText(value: number): string {
  bits[0] = value;
  const slot = (Math.imul(words[0]! ^ words[1]!, 0x9e3779b1) >>> 20) & (CACHE_SLOTS - 1);
  // An empty slot holds NaN, which equals nothing.
  if (cachedValues[slot] === value) return cachedTexts[slot]!;
  const text = String(value);
  cachedValues[slot] = value;
  cachedTexts[slot] = text;
  return text;
}
