// Nested JSON values as indented text lines for the CLI's human output:
// scalars as they are, lists of scalars on one line, objects and lists of
// objects one entry per line, so no value prints as [object Object].

const isScalar = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** One line for a flat object (`a=1 b=x`), or undefined when it nests. */
function flatLine(value: Record<string, unknown>): string | undefined {
  const entries = Object.entries(value);
  if (!entries.every(([, item]) => isScalar(item) || (Array.isArray(item) && item.every(isScalar)))) return undefined;
  return entries.map(([key, item]) => `${key}=${Array.isArray(item) ? item.join(',') : String(item)}`).join(' ');
}

/** The lines of `name: value`, nested entries indented two spaces a level. */
export function readableLines(name: string, value: unknown, indent = ''): string[] {
  if (isScalar(value) || value === undefined) return [`${indent}${name}: ${String(value)}`];
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return [`${indent}${name}: ${value.join(', ')}`];
    return [
      `${indent}${name}:`,
      ...value.flatMap((item, index) => {
        if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
          const flat = flatLine(item as Record<string, unknown>);
          if (flat !== undefined) return [`${indent}  - ${flat}`];
        }
        return readableLines(`[${index}]`, item, `${indent}  `);
      }),
    ];
  }
  const object = value as Record<string, unknown>;
  const flat = flatLine(object);
  if (flat !== undefined && flat.length <= 100) return [`${indent}${name}: ${flat}`];
  return [`${indent}${name}:`, ...Object.entries(object).flatMap(([key, item]) => readableLines(key, item, `${indent}  `))];
}
