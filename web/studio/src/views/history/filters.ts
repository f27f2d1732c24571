import {
  ASSET_KINDS,
  MEDIA_KINDS,
  type AssetKind,
  type CapabilitiesBody,
  type HistoryKind,
  type LaneId,
  type MediaKind,
} from '../../api/contract';
import { lanesOf, type HistoryFilter } from '../../api/queries';
import type { HistoryListing } from '../../store/ui';

// What the History toolbar offers, read from the contract and the catalog, and
// how the listing's state becomes GET /api/history's query.

/** What an asset is, by its format (history's `kind=` reads these first). */
export const MEDIA_KIND_IDS = Object.keys(MEDIA_KINDS) as MediaKind[];
/** What made an asset (a record's `kind`), without the ones that also name what it is. */
export const MAKER_KIND_IDS = ASSET_KINDS.filter((kind) => !Object.hasOwn(MEDIA_KINDS, kind)) as AssetKind[];

/** The kind picker's groups, in order. */
export const KIND_GROUPS: ReadonlyArray<readonly [string, readonly HistoryKind[]]> = [
  ['What it is', MEDIA_KIND_IDS],
  ['What made it', MAKER_KIND_IDS],
];

/** A label per kind the API takes (a kind added to the contract needs one here). */
export const KIND_LABELS: Readonly<Record<HistoryKind, string>> = {
  image: 'Images (PNG, JPEG, WebP)',
  video: 'Videos',
  'vector-svg': 'Vector (SVG, traced)',
  generate: 'Generated',
  edit: 'Edits',
  multimode: 'Batches (multimode)',
  node: 'Node graph',
  import: 'Imported',
};

export interface ModelOption {
  id: string;
  label: string;
}

/** The models of the chosen lane, else every model of the catalog; labelled as the catalog labels them. */
export function modelOptions(capabilities: CapabilitiesBody | undefined, lane: LaneId | ''): ModelOption[] {
  if (!capabilities) return [];
  const ids = lane
    ? (lanesOf(capabilities).find((entry) => entry.id === lane)?.models ?? [])
    : [...new Set(capabilities.models.map((model) => model.id))];
  return ids.map((id) => {
    const label = capabilities.models.find((model) => model.id === id)?.label;
    return { id, label: label && label !== id ? `${label} (${id})` : id };
  });
}

/** The instant a local calendar day (`yyyy-mm-dd`) starts, `days` later; undefined for no day. */
export function dayStart(day: string, days = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days).toISOString();
}

/** How many filters narrow the listing (search and session included). */
export function activeFilterCount(listing: HistoryListing): number {
  return (
    [listing.q, listing.provider, listing.model, listing.kind, listing.since, listing.until].filter((value) => value !== '').length +
    (listing.session !== undefined ? 1 : 0)
  );
}

/**
 * The item listing's query. The date range covers whole days of this
 * computer's calendar: `since` at the start of the first, `until` at the start
 * of the day after the last. `impossible` when the range ends before it starts.
 */
export function historyFilterOf(listing: HistoryListing): { filter: HistoryFilter; impossible: boolean } {
  const since = dayStart(listing.since);
  const until = dayStart(listing.until, 1);
  return {
    filter: {
      q: listing.q || undefined,
      provider: listing.provider || undefined,
      model: listing.model || undefined,
      kind: listing.kind || undefined,
      since,
      until,
      session: listing.session,
      sessionId: listing.sessionId,
    },
    impossible: since !== undefined && until !== undefined && since >= until,
  };
}
