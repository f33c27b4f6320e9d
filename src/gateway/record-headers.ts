// The headers of a REST call as the Headers a service's HandlerContext expects, kept in
// plain records. WHATWG Headers (undici's) convert, validate and sort on every call:
// copying a request's headers into one and reading the response's back out cost more
// than the rest of a cached live answer's own work, on every request. Nothing is lost
// by keeping records: Node checks every name and value it writes to the wire.

import type { IncomingHttpHeaders } from "node:http";

/**
 * A request's headers, read where Node parsed them (names lowercase, repeated headers
 * joined as Node joins them). Immutable, as a request's headers are in the Fetch standard.
 */
export class RequestHeaders implements Headers {
  constructor(private readonly record: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.record[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === "string" ? value : value.join(", ");
  }

  has(name: string): boolean {
    return this.record[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    return [...(this.record["set-cookie"] ?? [])];
  }

  set(_name: string, _value: string): never {
    throw new TypeError("a request's headers are immutable");
  }

  append(_name: string, _value: string): never {
    throw new TypeError("a request's headers are immutable");
  }

  delete(_name: string): never {
    throw new TypeError("a request's headers are immutable");
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.record)) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** The headers a call sets on its answer, in a record the gateway hands Fastify as it is. */
export class ResponseHeaders implements Headers {
  /** Lowercase names, in the order they were first set. */
  readonly record: Record<string, string> = {};

  get(name: string): string | null {
    return this.record[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return name.toLowerCase() in this.record;
  }

  set(name: string, value: string): void {
    this.record[name.toLowerCase()] = value;
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const previous = this.record[key];
    this.record[key] = previous === undefined ? value : `${previous}, ${value}`;
  }

  delete(name: string): void {
    delete this.record[name.toLowerCase()];
  }

  getSetCookie(): string[] {
    const cookie = this.record["set-cookie"];
    return cookie === undefined ? [] : [cookie];
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* Object.entries(this.record);
  }

  *keys(): IterableIterator<string> {
    yield* Object.keys(this.record);
  }

  *values(): IterableIterator<string> {
    yield* Object.values(this.record);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}
