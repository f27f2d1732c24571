#!/usr/bin/env node
// The `prepare` script: `npm ci` and `npm install` build the checkout (tsc, the bundle, the web
// apps) through it. `npx svc …` in the checkout runs it too: npm links the checkout into its npx
// cache and prepares it there (npm_command=exec), which rebuilt dist/ on every first call, under a
// running studio. Running a command never builds: under npx nothing is done.
import { spawnSync } from 'node:child_process';

if (process.env.npm_command === 'exec') process.exit(0);
// The npm that runs this script (npm_execpath), else the one on PATH.
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const build = spawnSync(npm[0], [...npm.slice(1), 'run', 'build'], { stdio: 'inherit' });
process.exit(build.status ?? 1);
