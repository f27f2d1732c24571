import { randomBytes } from 'node:crypto';
import type { Simulator } from '../harness.js';
import type { PromptTriggers } from '../prompt-triggers.js';
import type { GammaTrigger } from './triggers.js';

/** One submitted generation, as the vendor keeps it. */
export interface Prediction {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
  readonly prompt: string;
  readonly triggers: PromptTriggers<GammaTrigger>;
  readonly width: number;
  readonly height: number;
  readonly format: 'png' | 'jpeg' | 'webp';
  readonly transparent: boolean;
  readonly inputs: readonly Buffer[];
  polls: number;
  /** The output link, once rendered. */
  output?: string;
}

/** What the gamma simulator's routes share. */
export interface GammaState {
  readonly simulator: Simulator;
  /** How long a prediction runs (at least one poll answers `processing` whatever this is). */
  readonly latencyMs: number;
  accepts(key: string): boolean;
  readonly predictions: Map<string, Prediction>;
  /** Uploaded references by their URL. */
  readonly uploads: Map<string, Buffer>;
  /** Files served under `/files/<name>`: uploads and outputs. */
  readonly files: Map<string, { bytes: Buffer; type: string }>;
}

export const newId = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;

/** Entries kept per map (oldest dropped), so a long demo does not grow without bound. */
export const MAX_KEPT = 256;

export function keep<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_KEPT) map.delete(map.keys().next().value as string);
}
