import type { AssetRecord, InflightJob, ProviderStatus } from './contract';

// Answers of routes the contract module has no schema for yet (history pages,
// defaults, storage, health). Written from the routes' code; they move to
// src/studio/api once it declares them (listed as a gap in the web UI docs).

/** GET /api/history (items). */
export interface HistoryPage {
  items: AssetRecord[];
  nextCursor: string | null;
}

/** One group of GET /api/history?groupBy=session. */
export interface SessionGroup {
  sessionTitle: string | null;
  /** The graph sessions titled so (groups are by title: sessions sharing a title share a group). */
  sessionIds: string[];
  /** The group's one graph session when it holds only that session's images; else null. */
  sessionId: string | null;
  /** The graph session was deleted (its images stay, under its last title). */
  sessionDeleted: boolean;
  count: number;
  latestAt: string;
  items: AssetRecord[];
  itemsNextCursor: string | null;
}

export interface HistoryGroupsPage {
  groups: SessionGroup[];
  nextCursor: string | null;
}

/** What a file's embedded metadata says (GET /api/history/:filename). */
export interface EmbeddedMetadata {
  prompt: string;
  lane: string;
  model: string;
  requestId: string;
  kind: string;
  settings: Record<string, unknown>;
  revisedPrompt?: string;
  sessionTitle?: string;
  createdAt?: string;
}

export type AssetDetail = AssetRecord & { embeddedMetadata: EmbeddedMetadata | null };

/** DELETE /api/history/:filename */
export interface Tombstone {
  filename: string;
  deletedAt: string;
  restorableUntil: string;
}

/** DELETE /api/history/:filename?permanent=true */
export interface Purged {
  filename: string;
  purged: true;
  freedBytes: number;
}

export interface Sourced<T> {
  value: T;
  source: 'env' | 'config' | 'builtin' | string;
}

/** GET /api/defaults: per lane its settings, plus the video target. */
export interface DefaultsBody {
  oauth?: Record<string, Sourced<unknown>>;
  api?: Record<string, Sourced<unknown>>;
  video: Sourced<{ lane: string; model: string }>;
  /** PUT only: lanes that stored another model than the one asked for. */
  equivalents?: Record<string, { requested: string; stored: string }>;
}

export interface StorageStatus {
  paths: { home: string; config: string; database: string; generated: string; descriptor: string };
  generated: { bytes: number; files: number };
  thumbnails: { bytes: number; files: number };
  database: { bytes: number };
  disk: { freeBytes: number; totalBytes: number };
}

export interface ProvidersBody {
  providers: ProviderStatus[];
}

export interface InflightBody {
  jobs: InflightJob[];
}

export interface HealthBody {
  ok: boolean;
  version: string;
  startedAt: string;
  demo: boolean;
}
