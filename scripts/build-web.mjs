#!/usr/bin/env node
// Builds every browser app under web/<app>/ that has a vite.config.ts into
// dist/web/<app>/ (the servers serve it from there): studio, manager, chat.
// Code shared by the apps (web/shared) is bundled into each.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';

const root = resolve(import.meta.dirname, '..');
const only = process.argv.slice(2);
const apps = readdirSync(join(root, 'web'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'web', entry.name, 'vite.config.ts')))
  .map((entry) => entry.name)
  .filter((name) => only.length === 0 || only.includes(name));

for (const app of apps) {
  const dir = join(root, 'web', app);
  await build({
    root: dir,
    configFile: join(dir, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: join(root, 'dist', 'web', app), emptyOutDir: true },
  });
  console.log(`web/${app} → dist/web/${app}`);
}
