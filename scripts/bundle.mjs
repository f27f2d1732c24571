#!/usr/bin/env node
// Bundles the two programs (dist/cli/svc.js, dist/cli/svc-chat.js, as tsc
// emitted them) into dist/bundle/, which bin/ runs. One file per program plus
// shared chunks for what loads later (`svc serve` pulls the server in through
// a dynamic import): Node's loader costs about a millisecond per module, and
// the server is some five hundred of them unbundled, which was most of its
// cold start. Native packages (and the rarely used auth library) stay
// external: they find their binaries by path.
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { svc: join(root, 'dist/cli/svc.js'), 'svc-chat': join(root, 'dist/cli/svc-chat.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  external: [
    'better-sqlite3',
    'sharp',
    '@neplex/vectorizer',
    'google-auth-library',
    // Required by Fastify only for JSON schemas (which no route declares: see common/http-app.ts) and
    // for inject() (tests): left out, they would be loaded from node_modules if ever reached.
    '@fastify/ajv-compiler',
    '@fastify/fast-json-stringify-compiler',
    'light-my-request',
  ],
  // Bundled CommonJS (Fastify and its plugins) calls require() for Node's built-ins.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
console.log('dist/cli → dist/bundle');
