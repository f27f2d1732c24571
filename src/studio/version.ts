import { readFileSync } from 'node:fs';
import { inCheckout } from '../common/checkout.js';

/** The server version, read once from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(inCheckout('package.json'), 'utf8')) as { version: string }).version;
