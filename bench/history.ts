// History at scale: GET /api/history at 1,000 and at 100,000 assets, seeded
// into the database directly (rows as saveAsset writes them; no files, the
// listing never reads the disk). The 1,000-asset library is the baseline: the
// report gives each figure at 100,000 as a ratio of the same at 1,000.
//
// For each library, over real HTTP to a studio in this process: the first
// page, a deep page (the middle of the library, reached by its cursor),
// searches (a common word, a rare word, two words, a word's beginning),
// filtered pages (a lane, a kind, a date range), each 200 times after a
// warm-up; p50/p99. The grouped listing is measured too (it groups the whole
// library, so its cost grows with it: reported, not held to the target).
//
// Run: node --import tsx bench/history.ts   (BENCH_SIZES=1000,100000; BENCH_REPEATS=200)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStudio, type RunningStudio } from '../src/studio/main.js';
import { insertAsset, type NewAssetRow } from '../src/studio/store/assets.js';
import { percentile, round, table } from './lib/stats.js';
import { embeddedDatabase } from '../src/studio/store/open.js';

const SIZES = (process.env.BENCH_SIZES ?? '1000,100000').split(',').map(Number);
const REPEATS = Math.max(10, Number(process.env.BENCH_REPEATS ?? 200));
const PAGE = 50;

// Prompts drawn from small vocabularies with a skew (a few words are everywhere, most are rare),
// from a fixed seed so every run seeds the same library.
const SUBJECTS = [
  'fox',
  'whale',
  'lighthouse',
  'castle',
  'robot',
  'garden',
  'city',
  'forest',
  'dragon',
  'cat',
  'ship',
  'mountain',
  'portrait',
  'owl',
  'bridge',
  'desert',
  'train',
  'violin',
  'temple',
  'harbour',
];
const ADJECTIVES = [
  'red',
  'misty',
  'golden',
  'ancient',
  'neon',
  'quiet',
  'stormy',
  'tiny',
  'giant',
  'frozen',
  'glowing',
  'rusty',
  'velvet',
  'paper',
  'crystal',
  'hidden',
  'floating',
  'broken',
  'sunlit',
  'moonlit',
];
const STYLES = [
  'watercolor',
  'oil painting',
  'pencil sketch',
  'photograph',
  'isometric render',
  'pixel art',
  'ukiyo-e print',
  'charcoal drawing',
  'claymation',
  'blueprint',
];
const PLACES = [
  'at dawn',
  'at night',
  'in the rain',
  'under snow',
  'by the sea',
  'in autumn',
  'on Mars',
  'in a dream',
  'after the storm',
  'in spring',
];
const LANES = ['api', 'oauth', 'gamma', 'delta', 'epsilon', 'beta-api'];
/** A word that appears in one prompt in a thousand. */
const RARE = 'zeppelin';

let state = 42;
const random = (): number => {
  state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
  return state / 2 ** 31;
};
/** Skewed pick: low indexes far more often than high ones. */
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() ** 2 * list.length)];

function row(index: number, count: number): NewAssetRow {
  const svg = index % 97 === 0;
  const prompt = `a ${pick(ADJECTIVES)} ${pick(SUBJECTS)} ${pick(PLACES)}, ${pick(STYLES)}${index % 1000 === 500 ? ` with a ${RARE}` : ''}`;
  const filename = `2026${String(index).padStart(8, '0')}-bench-${index.toString(36)}.${svg ? 'svg' : 'png'}`;
  return {
    filename,
    thumbnail: filename.replace(/\.\w+$/, '.webp'),
    format: svg ? 'svg' : 'png',
    width: 1024,
    height: 1024,
    bytes: 1_500_000,
    // One asset a minute, the newest last, ending now.
    created_at: new Date(Date.now() - (count - index) * 60_000).toISOString(),
    prompt,
    lane: svg ? 'api' : LANES[index % LANES.length],
    model: svg ? 'vtracer' : 'bench-model',
    request_id: `bench-${index}`,
    kind: svg ? 'vector-svg' : 'generate',
    session_title: index % 10 === 0 ? `session ${index % 500}` : null,
    revised_prompt: index % 3 === 0 ? `${prompt}, highly detailed` : null,
    settings: '{}',
    thumbnail_state: 'ready',
    derived_from: null,
    session_id: null,
  };
}

async function library(count: number): Promise<{ studio: RunningStudio; home: string; seedMs: number }> {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-history-'));
  const studio = await startStudio({ env: { SVC_HOME: home, PATH: process.env.PATH }, port: 0, descriptor: false });
  const started = performance.now();
  const db = embeddedDatabase(studio.ctx);
  db.transaction(() => {
    for (let index = 0; index < count; index += 1) insertAsset(db, row(index, count));
  })();
  db.pragma('optimize');
  return { studio, home, seedMs: performance.now() - started };
}

interface Page {
  items?: unknown[];
  nextCursor: string | null;
  groups?: unknown[];
}

async function get(studio: RunningStudio, query: string): Promise<Page> {
  const response = await fetch(`${studio.url}/api/history?${query}`);
  const body = (await response.json()) as Page;
  if (!response.ok) throw new Error(`${query}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** The cursor of the page that starts at the middle of the library (walked to with the largest pages). */
async function middleCursor(studio: RunningStudio, count: number): Promise<string> {
  let cursor: string | null = null;
  for (let seen = 0; seen < count / 2;) {
    const page: Page = await get(studio, `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    seen += page.items?.length ?? 0;
    cursor = page.nextCursor;
    if (!cursor) throw new Error('the library ended before its middle');
  }
  return cursor as string;
}

async function measure(studio: RunningStudio, query: string): Promise<{ p50: number; p99: number; items: number }> {
  let items = 0;
  for (let index = 0; index < 10; index += 1) {
    const page = await get(studio, query);
    items = (page.items ?? page.groups ?? []).length;
  }
  const times: number[] = [];
  for (let index = 0; index < REPEATS; index += 1) {
    const started = performance.now();
    await get(studio, query);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)), items };
}

const results = new Map<number, Map<string, { p50: number; p99: number; items: number }>>();
const seeding: Record<number, number> = {};
for (const count of SIZES) {
  const { studio, home, seedMs } = await library(count);
  seeding[count] = round(seedMs);
  try {
    const deep = await middleCursor(studio, count);
    const week = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const queries: Record<string, string> = {
      'first page': `limit=${PAGE}`,
      'deep page (middle)': `limit=${PAGE}&cursor=${encodeURIComponent(deep)}`,
      'search: common word (fox)': `limit=${PAGE}&q=fox`,
      [`search: rare word (${RARE})`]: `limit=${PAGE}&q=${RARE}`,
      'search: two words (golden owl)': `limit=${PAGE}&q=golden%20owl`,
      'search: beginning of a word (light)': `limit=${PAGE}&q=light`,
      'filter: a lane (gamma)': `limit=${PAGE}&provider=gamma`,
      'filter: a kind (vector-svg)': `limit=${PAGE}&kind=vector-svg`,
      'filter: last 7 days, a lane, a word': `limit=${PAGE}&since=${week}&provider=api&q=red`,
      'grouped by session (first page)': 'groupBy=session&limit=20',
    };
    const figures = new Map<string, { p50: number; p99: number; items: number }>();
    for (const [name, query] of Object.entries(queries)) figures.set(name, await measure(studio, query));
    results.set(count, figures);
  } finally {
    await studio.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const [base, ...larger] = SIZES;
const names = [...(results.get(base)?.keys() ?? [])];
console.log(`history: GET /api/history over HTTP, ${REPEATS} requests each after a warm-up; p50/p99 ms; ratio = p50 at N / p50 at ${base}`);
console.log(`seeding: ${SIZES.map((count) => `${count} rows in ${seeding[count]} ms`).join(', ')}`);
console.log(
  table(
    ['request', ...SIZES.flatMap((count) => [`${count} p50`, `${count} p99`]), ...larger.map((count) => `ratio ${count}`)],
    names.map((name) => [
      name,
      ...SIZES.flatMap((count) => [results.get(count)?.get(name)?.p50 ?? '', results.get(count)?.get(name)?.p99 ?? '']),
      ...larger.map((count) =>
        round((results.get(count)?.get(name)?.p50 ?? Number.NaN) / (results.get(base)?.get(name)?.p50 ?? Number.NaN)),
      ),
    ]),
  ),
);
console.log(
  JSON.stringify({
    bench: 'history',
    repeats: REPEATS,
    seedingMs: seeding,
    results: Object.fromEntries([...results].map(([count, figures]) => [count, Object.fromEntries(figures)])),
  }),
);
