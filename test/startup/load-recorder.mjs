// Preloaded into `svc serve` by serve-lazy.test.ts (node --import): records
// every module the process resolves, one path or URL a line, to the file named
// by SVC_LOAD_RECORD. ES modules through a resolve hook (load-recorder-hooks.mjs),
// CommonJS through Module._load (a bundle's createRequire calls bypass the ES
// hooks on Node 20). Nothing in the program itself knows of it.
import Module, { register } from 'node:module';
import { appendFileSync } from 'node:fs';

const record = process.env.SVC_LOAD_RECORD;
if (!record) throw new Error('load-recorder: SVC_LOAD_RECORD names no file');
register('./load-recorder-hooks.mjs', import.meta.url);

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
