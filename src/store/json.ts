/**
 * JSON encoding shared by the stores, so that every store gives back exactly what SQLite would: a value
 * goes through JSON once on the way in (dropping `undefined` fields, turning dates into strings) and
 * comes back as a fresh object the caller owns.
 */

/** The JSON text of a value; `undefined` (or `null`) becomes SQL NULL. */
export function toJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return JSON.stringify(value);
}

/** The value of a JSON column; NULL becomes `null`. */
export function fromJson<T = unknown>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}

/** A deep copy with JSON semantics (the same value a round trip through the database gives). */
export function jsonClone<T>(value: T): T {
  return fromJson<T>(toJson(value));
}
