import { readFileSync } from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';

/** Reads a JSON file; a missing file gives `fallback`, a corrupt one throws with the path named. */
export function readJsonFile<T>(path: string, fallback: T): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Writes JSON atomically; `private` files (config, credentials) get mode 0600. */
export function writeJsonFile(path: string, value: unknown, options: { private?: boolean } = {}): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, options.private ? 0o600 : 0o644);
}
