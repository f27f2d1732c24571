// What an error code is: the HTTP status it answers, the CLI's exit kind, its
// default message. Kept apart from errors.ts so a lane can declare its own
// codes (`lanes/<lane>/codes.ts`) as plain data that errors.ts merges.

export type ExitKind = 'usage' | 'unreachable' | 'auth' | 'bad_request' | 'upstream' | 'timeout' | 'internal';

export interface CodeSpec {
  readonly status: number;
  readonly exit: ExitKind;
  readonly message: string;
}

export type CodeTable = Readonly<Record<string, CodeSpec>>;

export const spec = (status: number, exit: ExitKind, message: string): CodeSpec => ({ status, exit, message });

/** The tables as one; a code declared twice is a mistake, refused when the module loads. */
export function mergeCodeTables<const T extends readonly CodeTable[]>(...tables: T): MergedTables<T> {
  const merged: Record<string, CodeSpec> = {};
  for (const table of tables) {
    for (const [code, codeSpec] of Object.entries(table)) {
      if (Object.hasOwn(merged, code)) throw new Error(`Error code ${code} is declared twice.`);
      merged[code] = codeSpec;
    }
  }
  return merged as MergedTables<T>;
}

type MergedTables<T extends readonly CodeTable[]> = T extends readonly [infer First, ...infer Rest extends readonly CodeTable[]]
  ? First & MergedTables<Rest>
  : unknown;
