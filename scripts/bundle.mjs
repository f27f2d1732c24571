#!/usr/bin/env node
// Bundles the two programs (dist/cli/svc.js, dist/cli/svc-chat.js, as tsc
// emitted them) into dist/bundle/, which bin/ runs. One file per program plus
// shared chunks for what loads later (`svc serve` pulls the server in through
// a dynamic import): Node's loader costs about a millisecond per module, and
// the server is some five hundred of them unbundled, which was most of its
// cold start. Native packages (and the rarely used auth library) stay
// external: they find their binaries by path.
//
// What a program compiles at start is its entry and every chunk it imports
// statically; what the code loads with import() (the MCP SDK, sharp, ws, the
// simulators...) is left out of that until used. The build prints, per entry,
// its own size and the size it loads with its static imports, and writes
// esbuild's metafile to dist/bundle/metafile.json (test/startup reads it to
// tell which sources a loaded chunk holds).
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const outdir = join(root, 'dist', 'bundle');

// zod's `z` namespace re-exports every locale (some 360 kB, a third of zod in
// the bundle) and esbuild cannot drop members of a re-exported namespace; the
// studio speaks English only (common/issue-message.ts reads `en`), so the
// locale index holds `en` alone.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';\n",
      loader: 'js',
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { svc: join(root, 'dist/cli/svc.js'), 'svc-chat': join(root, 'dist/cli/svc-chat.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  metafile: true,
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [zodEnglishOnly],
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
    // pg's optional native binding (pg.native), which the studio never uses: pg requires it only when asked.
    'pg-native',
  ],
  // Bundled CommonJS (Fastify and its plugins) calls require() for Node's built-ins.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
writeFileSync(join(outdir, 'metafile.json'), JSON.stringify(metafile));

const outputs = Object.fromEntries(Object.entries(metafile.outputs).filter(([path]) => !path.endsWith('.map')));
/** The bytes the chunks load: themselves and every chunk they import statically, transitively. */
function startBytes(...paths) {
  const seen = new Set();
  const pending = [...paths];
  while (pending.length > 0) {
    const next = pending.pop();
    if (seen.has(next) || !outputs[next]) continue;
    seen.add(next);
    for (const imported of outputs[next].imports) if (imported.kind === 'import-statement') pending.push(imported.path);
  }
  return [...seen].reduce((sum, chunk) => sum + outputs[chunk].bytes, 0);
}
const kB = (bytes) => `${(bytes / 1024).toFixed(0)} kB`.padStart(8);
const entries = Object.entries(outputs)
  .filter(([, output]) => output.entryPoint)
  .map(([path, output]) => ({
    name: relative(outdir, path),
    source: output.entryPoint.replace(/^.*node_modules\//, 'node_modules/'),
    own: output.bytes,
    start: startBytes(path),
  }))
  .sort((a, b) => b.start - a.start);
const total = Object.values(outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `dist/cli → dist/bundle: ${Object.keys(outputs).length} files, ${kB(total).trim()}; per entry: own size, with its static imports`,
);
for (const entry of entries) console.log(`${kB(entry.own)} ${kB(entry.start)}  ${entry.source}`);
// `svc serve` is the program's entry, then the studio's (a dynamic import).
const entryOf = (source) => Object.keys(outputs).find((path) => outputs[path].entryPoint === source);
console.log(`svc serve compiles at start ${kB(startBytes(entryOf('dist/cli/svc.js'), entryOf('dist/studio/main.js'))).trim()}`);
