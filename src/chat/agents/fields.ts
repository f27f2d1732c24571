// Reading fields of parsed JSON without trusting its shape: the agent programs
// add and change fields over time, so every access is checked.

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export const stringField = (value: unknown, key: string): string | undefined => {
  const field = isObject(value) ? value[key] : undefined;
  return typeof field === 'string' ? field : undefined;
};

export const objectField = (value: unknown, key: string): JsonObject | undefined => {
  const field = isObject(value) ? value[key] : undefined;
  return isObject(field) ? field : undefined;
};

export const arrayField = (value: unknown, key: string): unknown[] | undefined => {
  const field = isObject(value) ? value[key] : undefined;
  return Array.isArray(field) ? field : undefined;
};

/** Tool inputs must be objects on our stream; anything else is wrapped. */
export const asToolInput = (value: unknown): JsonObject =>
  isObject(value) ? value : value === undefined || value === null ? {} : { value };
