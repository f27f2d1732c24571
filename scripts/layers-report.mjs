#!/usr/bin/env node
// Prints the layering figures of issue 42's Measure for the tree it runs in:
//   node scripts/layers-report.mjs [root] [--width N] [--list]
// root defaults to the current directory (run it in another checkout to compare);
// --width is the line width counted as too long (160); --list names the files and
// imports behind each figure. Imports are read with the TypeScript parser; which
// of them load at run time is what `ts.transpileModule` keeps (it drops `import
// type` and imports used only as types, as the build does).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const width = Number(option('--width', '160'));
if (!Number.isInteger(width) || width < 1) throw new Error(`--width takes a positive whole number, not ${option('--width')}.`);
const root = resolve(args.find((arg, index) => !arg.startsWith('--') && args[index - 1] !== '--width') ?? '.');
const list = flag('--list');

const LANE_IDS = ['oauth', 'api', 'alpha', 'alpha-api', 'beta-api', 'cligen', 'gamma', 'delta', 'epsilon', 'flow', 'zeta', 'eta'];
const CAPABILITY_FOLDERS = ['video', 'prompt-builder', 'agent', 'mcp-server', 'openai', 'jobs'].map((folder) => `src/studio/${folder}/`);
const LANES = 'src/studio/lanes/';
const REGISTRY = 'src/studio/catalog/registry.ts';
/** Folders whose source lines count for the width figure (what a formatter would cover). */
const FORMATTED = ['src', 'test', 'web', 'bench', 'scripts', 'bin'];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP = new Set(['node_modules', 'dist', 'coverage', 'vendor', '.git']);

const posix = (path) => path.split(sep).join('/');
const rel = (file) => posix(relative(root, file));

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** A relative specifier as the file it names (`./x.js` is `./x.ts` in the sources). */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.js`,
    `${stem}.mjs`,
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
    join(base, 'index.js'),
  ];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Every module specifier a source names: import and export declarations, import() and require() with a literal. */
function specifiers(sourceFile) {
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
        found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

const scriptKind = (file) => (file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);

/** The graph of src/: for each file, the files it imports at all (types included) and at run time. */
function importGraph(files) {
  const all = new Map();
  const runtime = new Map();
  const edges = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const parsed = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
    const typed = new Set();
    for (const specifier of specifiers(parsed)) {
      const target = resolveImport(file, specifier);
      edges.push({ from: file, specifier, target });
      if (target) typed.add(target);
    }
    const emitted = /\.[mc]?js$/.test(file)
      ? text
      : ts.transpileModule(text, {
          fileName: file,
          compilerOptions: {
            module: ts.ModuleKind.ESNext,
            target: ts.ScriptTarget.ES2022,
            jsx: ts.JsxEmit.Preserve,
            verbatimModuleSyntax: false,
            isolatedModules: true,
          },
        }).outputText;
    const loaded = new Set();
    for (const specifier of specifiers(ts.createSourceFile(`${file}.js`, emitted, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS))) {
      const target = resolveImport(file, specifier);
      if (target) loaded.add(target);
    }
    all.set(file, typed);
    runtime.set(file, loaded);
  }
  return { all, runtime, edges };
}

/** Strongly connected components (Tarjan, iterative), largest first. */
function components(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [{ node: start, targets: [...(graph.get(start) ?? [])].filter((t) => graph.has(t)), at: 0 }];
    index.set(start, next);
    low.set(start, next);
    next += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.targets.length) {
        const target = frame.targets[frame.at++];
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next);
          next += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, targets: [...(graph.get(target) ?? [])].filter((t) => graph.has(t)), at: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node), low.get(frame.node)));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        found.push(component);
      }
    }
  }
  return found.sort((a, b) => b.length - a.length);
}

const srcFiles = walk(join(root, 'src'));
if (srcFiles.length === 0) throw new Error(`No src/ under ${root}.`);
const { all, runtime, edges } = importGraph(srcFiles);

// (a) Imports of a lane's folder from outside lanes/ (the registry aside).
const laneFolderOf = (file) => {
  const path = rel(file);
  if (!path.startsWith(LANES)) return undefined;
  const rest = path.slice(LANES.length).split('/');
  return rest.length > 1 ? rest[0] : undefined;
};
const laneImports = edges.filter(
  ({ from, target }) => target && laneFolderOf(target) && !rel(from).startsWith(LANES) && rel(from) !== REGISTRY,
);

// (b) Quoted lane ids in the capability folders.
const quoted = [];
for (const file of srcFiles.filter((f) => CAPABILITY_FOLDERS.some((folder) => rel(f).startsWith(folder)))) {
  const parsed = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, scriptKind(file));
  const visit = (node) => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      LANE_IDS.includes(node.text) &&
      !ts.isModuleDeclaration(node.parent) &&
      !ts.isImportDeclaration(node.parent) &&
      !ts.isExportDeclaration(node.parent)
    ) {
      quoted.push({ file, id: node.text, line: parsed.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(parsed);
}

// (c), (d) Import loops.
const typeLoops = components(all).filter((c) => c.length > 1);
const valueLoops = components(runtime).filter((c) => c.length > 1);

// (e) Long lines.
let longLines = 0;
const longByFile = new Map();
for (const folder of FORMATTED) {
  for (const file of walk(join(root, folder))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const over = lines.filter((line) => line.length > width).length;
    if (over > 0) {
      longLines += over;
      longByFile.set(rel(file), over);
    }
  }
}

const folderCount = (items, key) => {
  const counts = new Map();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
};

console.log(`Layers report for ${root} (${srcFiles.length} files under src/)`);
console.log(`(a) imports of a lane's folder from outside ${LANES} (${REGISTRY} aside): ${laneImports.length}`);
if (laneImports.length > 0) console.log(`    by importing folder: ${folderCount(laneImports, ({ from }) => posix(dirname(rel(from))))}`);
if (list) for (const { from, specifier } of laneImports) console.log(`      ${rel(from)} -> ${specifier}`);
console.log(`(b) quoted lane ids in ${CAPABILITY_FOLDERS.join(' ')}: ${quoted.length}`);
if (quoted.length > 0) console.log(`    by folder: ${folderCount(quoted, ({ file }) => rel(file).split('/').slice(0, 3).join('/'))}`);
if (list) for (const { file, id, line } of quoted) console.log(`      ${rel(file)}:${line} '${id}'`);
console.log(
  `(c) largest import loop, type imports included: ${typeLoops[0]?.length ?? 0} files (${typeLoops.length} loop${typeLoops.length === 1 ? '' : 's'}: ${typeLoops.map((c) => c.length).join(', ') || 'none'})`,
);
if (list) for (const loop of typeLoops) console.log(`      [${loop.length}] ${loop.map(rel).sort().join(' ')}`);
console.log(
  `(d) value-level import loops (run-time imports only): ${valueLoops.length}${valueLoops.length ? ` (sizes ${valueLoops.map((c) => c.length).join(', ')})` : ''}`,
);
for (const loop of valueLoops) console.log(`      [${loop.length}] ${loop.map(rel).sort().join(' ')}`);
console.log(`(e) lines over ${width} characters in ${FORMATTED.join(', ')}: ${longLines} in ${longByFile.size} files`);
if (list) for (const [file, n] of [...longByFile].sort((a, b) => b[1] - a[1])) console.log(`      ${file} ${n}`);
