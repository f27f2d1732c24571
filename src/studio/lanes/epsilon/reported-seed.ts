import { readPngLatin1Text } from '../../media/png-text.js';
import { EPSILON_RANGES } from './options.js';

// The vendor picks a seed when the request gives none, and writes the
// parameters it ran with into the PNG's tEXt `Comment` chunk as JSON
// (contract §7: "PNG text chunks likely carry it"). The seed read there is the
// one recorded with the asset, so a Remix reproduces the image.

/** The seed the image says it was made with, when it says so with a valid one. */
export function reportedSeed(png: Buffer): number | undefined {
  const comment = readPngLatin1Text(png, 'Comment');
  if (!comment) return undefined;
  try {
    const seed = (JSON.parse(comment) as { seed?: unknown }).seed;
    const { min, max } = EPSILON_RANGES.seed;
    return typeof seed === 'number' && Number.isInteger(seed) && seed >= min && seed <= max ? seed : undefined;
  } catch {
    return undefined;
  }
}
