import type { StudioStore } from '../../../src/studio/store/repositories.js';
import type { NewAssetRow } from '../../../src/studio/store/assets.js';

// What every repository contract suite is given: a fresh, empty store of the
// implementation under test (all repositories over one database, since some
// reads join them), and how to let it go.

export interface StoreHarness {
  readonly store: StudioStore;
  close(): Promise<void>;
}

export type MakeStore = () => Promise<StoreHarness>;

/** An asset row with every field filled in; `overrides` say what the test is about. */
export function assetRow(filename: string, overrides: Partial<NewAssetRow> = {}): NewAssetRow {
  return {
    filename,
    thumbnail: `${filename}.thumb.webp`,
    format: 'png',
    width: 64,
    height: 48,
    bytes: 1234,
    created_at: '2026-01-01T00:00:00.000Z',
    prompt: `prompt of ${filename}`,
    lane: 'api',
    model: 'lang-5.6-luna',
    request_id: `request-${filename}`,
    kind: 'generate',
    session_title: null,
    revised_prompt: null,
    settings: '{}',
    thumbnail_state: 'pending',
    derived_from: null,
    session_id: null,
    ...overrides,
  };
}

/** An ISO instant `minutes` after 2026-01-01 (rows ordered by time without waiting for it). */
export const minute = (minutes: number): string => new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString();
