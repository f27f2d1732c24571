import { ServiceError } from '../../errors.js';

// The delta vendor's sizes (contract §2), declared once: its aspect ratios with
// the pixels each gives, and the free dimensions `image-01` also takes. A
// request's `size` maps to a ratio when it is one of these exactly, else (on
// `image-01` only) to width and height.

export interface DeltaAspectRatio {
  readonly ratio: string;
  readonly size: string;
  /** Models that take it (default: both). */
  readonly models?: readonly string[];
}

export const DELTA_ASPECT_RATIOS: readonly DeltaAspectRatio[] = [
  { ratio: '1:1', size: '1024x1024' },
  { ratio: '16:9', size: '1280x720' },
  { ratio: '4:3', size: '1152x864' },
  { ratio: '3:2', size: '1248x832' },
  { ratio: '2:3', size: '832x1248' },
  { ratio: '3:4', size: '864x1152' },
  { ratio: '9:16', size: '720x1280' },
  { ratio: '21:9', size: '1344x576', models: ['image-01'] },
];

/** Free dimensions (`width` + `height`): `image-01` only, each side 512–2048 and a multiple of 8. */
export const DELTA_FREE_SIZE = { models: ['image-01'], min: 512, max: 2048, multipleOf: 8 } as const;

export const DELTA_DEFAULT_SIZE = '1024x1024';

/** The size fields of the upstream body, and the size that runs. */
export interface DeltaSize {
  readonly size: string;
  readonly fields: { readonly aspect_ratio: string } | { readonly width: number; readonly height: number };
}

const ratiosOf = (model: string) => DELTA_ASPECT_RATIOS.filter((entry) => !entry.models || entry.models.includes(model));

/** Maps a request's size on `model`; refuses (400, naming the valid sizes) what the vendor cannot make. */
export function deltaSize(model: string, size: string = DELTA_DEFAULT_SIZE): DeltaSize {
  const ratios = ratiosOf(model);
  const exact = ratios.find((entry) => entry.size === size);
  if (exact) return { size, fields: { aspect_ratio: exact.ratio } };
  const [width, height] = size.split('x').map(Number);
  const free = DELTA_FREE_SIZE;
  const side = (value: number) => value >= free.min && value <= free.max && value % free.multipleOf === 0;
  if ((free.models as readonly string[]).includes(model) && side(width) && side(height)) return { size, fields: { width, height } };
  const freeRule = (free.models as readonly string[]).includes(model)
    ? `, or any size with sides ${free.min}–${free.max} in multiples of ${free.multipleOf}`
    : '';
  throw new ServiceError(
    'BAD_REQUEST',
    `size ${size} is not one delta's ${model} makes: ${ratios.map((entry) => `${entry.size} (${entry.ratio})`).join(', ')}${freeRule}.`,
    {
      details: { lane: 'delta', field: 'size', model, valid: ratios.map((entry) => entry.size), ...(freeRule ? { free } : {}) },
    },
  );
}
