import { readFileSync } from 'node:fs';
import { inCheckout } from './checkout.js';

/** The product version (every server and both programs), read once from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(inCheckout('package.json'), 'utf8')) as { version: string }).version;
