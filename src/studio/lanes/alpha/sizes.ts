import { ServiceError } from '../../errors.js';
import { parseSize } from '../../api/index.js';
import {
  ALPHA_ASPECT_RATIOS,
  ALPHA_DEFAULT_SELECTION,
  ALPHA_PIXELS,
  ALPHA_RESOLUTIONS,
  type AlphaAspectRatio,
  type AlphaResolution,
} from './controls.js';
import type { AlphaOptions } from './options.js';

// From a request to the vendor's two controls. A `<w>x<h>` size maps to the
// native aspect ratio nearest to w/h (by the log of the ratios, so 2:1 and 1:2
// are equally far from 1:1) and to the resolution whose pixel count is nearest
// (2k above the geometric middle of the two, 2 megapixels). The lane's own
// options name them directly; a request gives one way or the other, not both.

/** Pixels where 1k ends and 2k begins: the geometric middle of ~1 MP and ~4 MP. */
const TWO_K_FROM_PIXELS = 2 * 1024 * 1024;

export interface AlphaSelection {
  readonly aspectRatio: AlphaAspectRatio;
  readonly resolution: AlphaResolution;
  /** The size asked for, when the selection came from one. */
  readonly requestedSize?: string;
}

const ratioValue = (ratio: string): number => {
  const [width, height] = ratio.split(':').map(Number);
  return width / height;
};

export function nearestAspectRatio(width: number, height: number): AlphaAspectRatio {
  const wanted = Math.log(width / height);
  let best: AlphaAspectRatio = ALPHA_DEFAULT_SELECTION.aspectRatio;
  for (const ratio of ALPHA_ASPECT_RATIOS) {
    if (Math.abs(Math.log(ratioValue(ratio)) - wanted) < Math.abs(Math.log(ratioValue(best)) - wanted)) best = ratio;
  }
  return best;
}

/** The selection a request runs with; BAD_REQUEST when it names a size and the options both. */
export function alphaSelection(size: string | undefined, options: Pick<AlphaOptions, 'aspectRatio' | 'resolution'>): AlphaSelection {
  if (size !== undefined) {
    if (options.aspectRatio !== undefined || options.resolution !== undefined) {
      throw new ServiceError('BAD_REQUEST', 'Give alpha either a size or options.aspectRatio / options.resolution, not both.', {
        details: { field: 'size', lane: 'alpha' },
      });
    }
    const parsed = parseSize(size);
    if (!parsed) throw new ServiceError('BAD_REQUEST', `size must look like 1024x1024, got "${size}".`, { details: { field: 'size' } });
    return {
      aspectRatio: nearestAspectRatio(parsed.width, parsed.height),
      resolution: parsed.width * parsed.height > TWO_K_FROM_PIXELS ? '2k' : '1k',
      requestedSize: size,
    };
  }
  return {
    aspectRatio: options.aspectRatio ?? ALPHA_DEFAULT_SELECTION.aspectRatio,
    resolution: options.resolution ?? ALPHA_DEFAULT_SELECTION.resolution,
  };
}

/** Every selection and its pixels: the size table (docs, capabilities). */
export const ALPHA_SIZE_TABLE = ALPHA_ASPECT_RATIOS.map((aspectRatio) => ({
  aspectRatio,
  ...Object.fromEntries(ALPHA_RESOLUTIONS.map((resolution) => [resolution, ALPHA_PIXELS[aspectRatio][resolution].join('x')])),
}));
