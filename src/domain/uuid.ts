// Path ids are UUIDs; anything else names nothing.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id is a UUID at all; anything else is answered as not found, never 400. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
