import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_GUIDE } from '../../src/demo/guide.js';

// Issue 29, item 15: the README lists the demo's error paths, every prompt tag
// each simulator knows and the rejected-key rule, from the same declarations
// the web UI's demo badge shows, so the two cannot drift apart.
describe('the README lists the demo error paths', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("### The demo's error paths"));

  it('every simulator tag, on its lanes row', () => {
    for (const [lanes, names] of Object.entries(DEMO_GUIDE.triggers)) {
      const row = section.split('\n').find((line) => line.startsWith(`| ${lanes} |`));
      expect(row, lanes).toBeDefined();
      for (const name of names) expect(row, `${lanes}: ${name}`).toContain(`\`${name}\``);
    }
  });

  it('the rejected-key rule', () => {
    expect(section).toContain(`\`${DEMO_GUIDE.rejectedKey.contains}\``);
    expect(section).toMatch(/any key is accepted except one with `rejected` in it \(any case\)/);
  });
});
