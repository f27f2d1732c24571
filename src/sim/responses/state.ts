import { randomBytes } from 'node:crypto';
import type { Simulator } from '../harness.js';
import type { TokenAuthority } from './oauth-tokens.js';
import type { UsageWindows } from './usage-windows.js';

// What every route of the Responses simulator shares.

export interface ResponsesState {
  readonly simulator: Simulator;
  readonly apiKeys: ReadonlySet<string>;
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey: ((key: string) => boolean) | undefined;
  readonly tokens: TokenAuthority;
  readonly usage: UsageWindows;
  readonly apiChatModels: readonly string[];
  readonly oauthChatModels: readonly string[];
  /** Simulated render time spread over the partial images and the final one (default 0). */
  readonly generationDelayMs: number;
  /** Emit `codex.rate_limits` first on backend streams. */
  readonly rateLimitsEvent: boolean;
  /** Responses created with `store: true` on the api lane (bounded). */
  readonly stored: StoredResponses;
}

const STORED_LIMIT = 50;

export interface StoredResponse {
  /** The response object as retrieve answers it (image results nulled). */
  readonly response: Record<string, unknown>;
  /** Image results by item id, so a later request may reference `{type:"image_generation_call",id}`. */
  readonly images: ReadonlyMap<string, Buffer>;
}

export class StoredResponses {
  private readonly entries = new Map<string, StoredResponse>();

  set(id: string, entry: StoredResponse): void {
    this.entries.set(id, entry);
    if (this.entries.size > STORED_LIMIT) this.entries.delete(this.entries.keys().next().value as string);
  }

  get(id: string): StoredResponse | undefined {
    return this.entries.get(id);
  }

  findImage(itemId: string): Buffer | undefined {
    for (const entry of this.entries.values()) {
      const image = entry.images.get(itemId);
      if (image) return image;
    }
    return undefined;
  }
}

/** Vendor-style ids: `resp_…`, `ig_…`, `msg_…`, `rs_…`, `req_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
