// Colors and randomness derived from a prompt, so the same prompt always
// draws the same picture and color words in it steer the picture's colors.

export type Rgb = readonly [number, number, number];

/** Color words a prompt may use, with the RGB each one makes dominant. */
export const COLOR_WORDS: Readonly<Record<string, Rgb>> = {
  red: [214, 38, 38],
  crimson: [190, 20, 50],
  scarlet: [230, 36, 20],
  orange: [240, 128, 24],
  yellow: [246, 214, 40],
  gold: [222, 176, 40],
  golden: [222, 176, 40],
  green: [46, 160, 64],
  emerald: [20, 150, 100],
  lime: [140, 210, 40],
  blue: [36, 84, 214],
  navy: [20, 36, 120],
  azure: [40, 140, 230],
  cyan: [30, 190, 210],
  teal: [20, 130, 130],
  turquoise: [40, 200, 190],
  purple: [128, 48, 180],
  violet: [140, 70, 220],
  magenta: [210, 40, 170],
  pink: [240, 120, 170],
  brown: [130, 80, 40],
  black: [24, 24, 28],
  white: [240, 240, 236],
  gray: [128, 128, 132],
  grey: [128, 128, 132],
  silver: [190, 192, 198],
};

/** FNV-1a, 32-bit: a cheap stable hash of the prompt and seed. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a tiny seeded generator, enough for placing shapes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const segment = (hue / 60) % 6;
  const second = chroma * (1 - Math.abs((segment % 2) - 1));
  const [r, g, b] =
    segment < 1
      ? [chroma, second, 0]
      : segment < 2
        ? [second, chroma, 0]
        : segment < 3
          ? [0, chroma, second]
          : segment < 4
            ? [0, second, chroma]
            : segment < 5
              ? [second, 0, chroma]
              : [chroma, 0, second];
  const offset = lightness - chroma / 2;
  return [Math.round((r + offset) * 255), Math.round((g + offset) * 255), Math.round((b + offset) * 255)];
}

/** Moves a color toward white (amount > 0) or black (amount < 0). */
export function shade(color: Rgb, amount: number): Rgb {
  const target = amount >= 0 ? 255 : 0;
  const weight = Math.abs(amount);
  return [0, 1, 2].map((channel) => Math.round(color[channel] + (target - color[channel]) * weight)) as unknown as Rgb;
}

export function toHex(color: Rgb): string {
  return `#${color.map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
}

export interface Palette {
  readonly dominant: Rgb;
  readonly accent: Rgb;
  /** The color words found, in order of first use. */
  readonly colorWords: readonly string[];
}

/**
 * The most frequent color word wins (ties: the first one); a second color word
 * becomes the accent. Prompts without color words get hues from their hash.
 */
export function paletteFor(prompt: string, hash: number): Palette {
  const counts = new Map<string, number>();
  for (const word of prompt.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (COLOR_WORDS[word]) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const words = [...counts.keys()];
  const ranked = [...words].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0));
  const hue = hash % 360;
  const dominant = ranked[0] ? COLOR_WORDS[ranked[0]] : hslToRgb(hue, 0.55, 0.5);
  const accent = ranked[1] ? COLOR_WORDS[ranked[1]] : hslToRgb((hue + 150 + (hash % 60)) % 360, 0.6, 0.6);
  return { dominant, accent, colorWords: words };
}
