/** A starting payload from a function's request schema (JSON Schema): each property with a placeholder value. */
type Schema = {
  type?: unknown;
  properties?: Record<string, Schema>;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
};

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export function exampleOf(schema: unknown, depth = 0): unknown {
  if (!isSchema(schema) || depth > 4) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  const type: unknown = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(schema.properties ?? {})) out[key] = exampleOf(prop, depth + 1) ?? null;
    return out;
  }
  const placeholders: Record<string, unknown> = { string: '', number: 0, integer: 0, boolean: false, array: [] };
  return typeof type === 'string' ? placeholders[type] : undefined;
}

/** The editor text to start with: the schema's example, else `{}`. */
export function initialPayload(schema: unknown): string {
  const example = exampleOf(schema);
  return example === undefined ? '{}' : JSON.stringify(example, null, 2);
}
