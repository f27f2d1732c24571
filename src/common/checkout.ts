import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Where this checkout is, found the same way from src/ (tsx), dist/ (tsc) and
// dist/bundle/ (the bundled programs): the nearest directory above this module
// whose package.json is ours. Files the programs read or run by path (web
// builds, the fake programs, package.json) are named from here, never from a
// module's own location, which differs between those three layouts.

const PACKAGE_NAME = 'svc-studio';

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`No ${PACKAGE_NAME} package.json above ${start}.`);
  }
}

/** The checkout's root directory. */
export const CHECKOUT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** Whether this code runs from TypeScript sources (tsx, vitest) rather than a build. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** A path inside the checkout. */
export const inCheckout = (...parts: string[]): string => join(CHECKOUT_ROOT, ...parts);
