// A JSON Schema as the gateway handles it, and a reference to a component schema.

export type JsonSchema = Record<string, unknown>;

/** A reference to a component schema (json-schemas.ts) by its $id. */
export const ref = (id: string): JsonSchema => ({ $ref: `${id}#` });
