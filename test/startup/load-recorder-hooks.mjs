// The ES module side of load-recorder.mjs (runs on the loader's hooks thread).
import { appendFileSync } from 'node:fs';

const record = process.env.SVC_LOAD_RECORD;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (!resolved.url.startsWith('node:')) appendFileSync(record, `${resolved.url}\n`);
  return resolved;
}
