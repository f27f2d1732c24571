// Preloaded into `svc serve` by serve-lazy.test.ts (node --import): records
// every module the process resolves, one path or URL a line, to the file named
// by SVC_LOAD_RECORD. ES modules through a resolve hook (load-recorder-hooks.mjs),
// CommonJS through Module._load (a bundle's createRequire calls bypass the ES
// hooks on Node 20). With SVC_SCHEMA_RECORD it also counts the zod schemas the
// process builds, through zod's own per-schema hook (its shared global config,
// which the bundled copy of zod reads too), and keeps the count in that file.
// Nothing in the program itself knows of it.
import Module, { register } from 'node:module';
import { appendFileSync, writeFileSync } from 'node:fs';

const record = process.env.SVC_LOAD_RECORD;
if (!record) throw new Error('load-recorder: SVC_LOAD_RECORD names no file');
register('./load-recorder-hooks.mjs', import.meta.url);

const schemaRecord = process.env.SVC_SCHEMA_RECORD;
if (schemaRecord) {
  let built = 0;
  globalThis.__zod_globalConfig = {
    postProcessor() {
      built += 1;
      writeFileSync(schemaRecord, String(built));
    },
  };
}

const load = Module._load;
Module._load = function recordedLoad(request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain);
  if (!request.startsWith('node:') && !Module.isBuiltin(request)) {
    try {
      appendFileSync(record, `${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      appendFileSync(record, `${request}\n`);
    }
  }
  return loaded;
};
