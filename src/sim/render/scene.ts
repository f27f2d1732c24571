import { paletteFor, seededRandom, shade, toHex, type Palette } from './palette.js';
import { simMarkSvg } from './sim-mark.js';

// Builds the SVG of a simulated picture: a sky-to-ground gradient and hills in
// the dominant color, a sun and a subject polygon in the accent color, dots per
// prompt word, then the SIM mark on top. Shapes only, no text elements.

export interface SceneOptions {
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly seed: number;
  /** Leave the background see-through (png/webp with a transparent background). */
  readonly transparent: boolean;
  /** The canvas lies over an input image (edits): tint it instead of hiding it. */
  readonly overBaseImage: boolean;
  /** Pixel size to rasterize at (default width×height); smaller gives a coarse draft of the same scene. */
  readonly pixelWidth?: number;
  readonly pixelHeight?: number;
}

const fmt = (value: number) => Math.round(value * 10) / 10;

function polygon(cx: number, cy: number, radius: number, sides: number, rotation: number): string {
  const points: string[] = [];
  for (let index = 0; index < sides; index += 1) {
    const angle = rotation + (index / sides) * Math.PI * 2;
    points.push(`${fmt(cx + Math.cos(angle) * radius)},${fmt(cy + Math.sin(angle) * radius)}`);
  }
  return points.join(' ');
}

export function sceneSvg(options: SceneOptions, palette: Palette = paletteFor(options.prompt, options.seed)): string {
  const { width, height, transparent, overBaseImage } = options;
  const random = seededRandom(options.seed);
  const short = Math.min(width, height);
  const { dominant, accent } = palette;
  const words = options.prompt.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  let body = '';

  if (!transparent) {
    const backgroundOpacity = overBaseImage ? 0.35 : 1;
    body +=
      `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${toHex(shade(dominant, 0.18))}"/>` +
      `<stop offset="1" stop-color="${toHex(shade(dominant, -0.22))}"/></linearGradient></defs>` +
      `<rect width="${width}" height="${height}" fill="url(#sky)" fill-opacity="${backgroundOpacity}"/>`;
  }

  // Sun: accent color, upper half.
  const sunRadius = short * (0.07 + random() * 0.06);
  body += `<circle cx="${fmt(width * (0.55 + random() * 0.35))}" cy="${fmt(height * (0.12 + random() * 0.2))}" r="${fmt(sunRadius)}" fill="${toHex(shade(accent, 0.2))}"/>`;

  // Hills: shades of the dominant color along the bottom, so it stays dominant.
  const hills = 2 + Math.floor(random() * 2);
  for (let index = 0; index < hills; index += 1) {
    const cx = width * (index / Math.max(1, hills - 1)) * (0.8 + random() * 0.4);
    const rx = width * (0.35 + random() * 0.3);
    const ry = height * (0.16 + random() * 0.12);
    const color = shade(dominant, index % 2 === 0 ? -0.3 - random() * 0.15 : 0.1 + random() * 0.1);
    body += `<ellipse cx="${fmt(cx)}" cy="${fmt(height * 1.02)}" rx="${fmt(rx)}" ry="${fmt(ry)}" fill="${toHex(color)}"/>`;
  }

  // Subject: a polygon whose sides come from the prompt, in the accent color.
  const sides = 3 + (words.length % 6);
  const subjectRadius = short * (0.13 + random() * 0.05);
  body += `<polygon points="${polygon(width * 0.5, height * 0.56, subjectRadius, sides, random() * Math.PI)}" fill="${toHex(accent)}" fill-opacity="0.9" stroke="${toHex(shade(accent, -0.45))}" stroke-width="${fmt(short * 0.008)}"/>`;

  // One dot per word (capped), lighter dominant shades.
  const dots = Math.min(24, words.length);
  for (let index = 0; index < dots; index += 1) {
    const color = shade(dominant, 0.25 + random() * 0.35);
    body += `<circle cx="${fmt(random() * width)}" cy="${fmt(random() * height * 0.7)}" r="${fmt(short * (0.01 + random() * 0.025))}" fill="${toHex(color)}" fill-opacity="0.8"/>`;
  }

  body += simMarkSvg(width, height);
  const pixelWidth = options.pixelWidth ?? width;
  const pixelHeight = options.pixelHeight ?? height;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${pixelWidth}" height="${pixelHeight}" preserveAspectRatio="none" viewBox="0 0 ${width} ${height}">${body}</svg>`;
}
