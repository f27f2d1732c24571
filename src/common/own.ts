// A key a user chose ("__proto__", "constructor", "toString") names only what
// the record itself holds: never something inherited from Object.prototype.

/** `record[key]` when `record` has `key` as its own property, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
