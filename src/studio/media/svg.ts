// SVG assets: what the studio saves and serves as a vector image. An SVG is
// a document that can run script and fetch things, so nothing goes into
// history unless it passes `checkSvg`: an allow-list of the elements and
// attributes a traced image is made of. The metadata payload sits in a
// `<metadata>` element, XML-escaped.

export class SvgRefused extends Error {}

/** Elements a traced image (and our metadata) consists of; anything else is refused. */
const ELEMENTS = new Set(['svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'polygon', 'polyline', 'line', 'title', 'desc', 'metadata']);
/** Attributes they may carry. No event handlers, no hrefs, no styles that could fetch. */
const ATTRIBUTES = new Set([
  'xmlns',
  'version',
  'width',
  'height',
  'viewbox',
  'preserveaspectratio',
  'id',
  'd',
  'transform',
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'opacity',
  'x',
  'y',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'x1',
  'y1',
  'x2',
  'y2',
  'points',
]);
const METADATA_ID = 'svc-metadata';
/** An SVG document's start: an optional XML declaration and comments, then the <svg> root. */
const SVG_START = /^(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/;

/** The tags of a document: `<name attributes>` and `</name>`, comments and declarations as they are. */
const TAG =
  /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'))?)*)\s*(\/?)>|<!--[\s\S]*?-->|<\?xml[\s\S]*?\?>|<![\s\S]*?>|<!\[CDATA\[[\s\S]*?\]\]>/g;
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'))?/g;

/** Throws SvgRefused unless the text is one `<svg>` document of allowed elements and attributes. */
export function checkSvg(text: string): void {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (!SVG_START.test(body)) throw new SvgRefused('the document does not start with an <svg> root');
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new SvgRefused('declarations (DOCTYPE, ENTITY) are not allowed');
  let depth = 0;
  let roots = 0;
  let lastIndex = 0;
  for (const match of body.matchAll(TAG)) {
    const between = body.slice(lastIndex, match.index);
    lastIndex = (match.index ?? 0) + match[0].length;
    if (/[<>]/.test(between)) throw new SvgRefused('malformed markup');
    if (!match[2]) {
      if (match[0].startsWith('<![CDATA[') || match[0].startsWith('<!--') || match[0].startsWith('<?xml')) continue;
      throw new SvgRefused(`markup ${match[0].slice(0, 20)} is not allowed`);
    }
    const [, closing, rawName, attributes, selfClosing] = match;
    const name = rawName.toLowerCase();
    if (!ELEMENTS.has(name)) throw new SvgRefused(`the element <${rawName}> is not allowed`);
    if (closing) {
      depth -= 1;
      continue;
    }
    if (depth === 0 && ++roots > 1) throw new SvgRefused('more than one root element');
    if (depth === 0 && name !== 'svg') throw new SvgRefused('the root element is not <svg>');
    for (const attribute of attributes.matchAll(ATTRIBUTE)) {
      const attributeName = attribute[1].toLowerCase();
      if (!ATTRIBUTES.has(attributeName)) throw new SvgRefused(`the attribute ${attribute[1]} is not allowed`);
      const value = (attribute[2] ?? '').slice(1, -1);
      if (/url\s*\(|javascript:|data:/i.test(value)) throw new SvgRefused(`the value of ${attribute[1]} may reach outside the document`);
    }
    if (!selfClosing) depth += 1;
  }
  if (/[<>]/.test(body.slice(lastIndex)) || depth !== 0) throw new SvgRefused('malformed markup');
}

/** Whether bytes look like an SVG document (its root, after an optional XML declaration). */
export const isSvg = (bytes: Uint8Array): boolean =>
  SVG_START.test(
    Buffer.from(bytes.subarray(0, 1024))
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart(),
  );

const number = (value: string | undefined): number | undefined => {
  const parsed = value === undefined ? NaN : Number.parseFloat(value);
  return Number.isFinite(parsed) && parsed > 0 ? Math.round(parsed) : undefined;
};

/** The pixel size an SVG declares: width/height, else its viewBox. */
export function svgSize(text: string): { width: number; height: number } {
  const root = /<svg\b([^>]*)>/.exec(text)?.[1] ?? '';
  const attribute = (name: string) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(root)?.[1];
  const viewBox = attribute('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  const width = number(attribute('width')) ?? (viewBox && number(String(viewBox[2])));
  const height = number(attribute('height')) ?? (viewBox && number(String(viewBox[3])));
  if (!width || !height) throw new SvgRefused('the document declares no size');
  return { width, height };
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const unescape = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The document with our metadata payload as the root's first child (replacing an earlier one). */
export function withSvgMetadata(text: string, json: string): string {
  const cleaned = text.replace(new RegExp(`<metadata id="${METADATA_ID}">[\\s\\S]*?</metadata>`), '');
  const open = /<svg\b[^>]*>/.exec(cleaned);
  if (!open || open[0].endsWith('/>')) throw new SvgRefused('the document has no <svg> element to hold metadata');
  const at = (open.index ?? 0) + open[0].length;
  return `${cleaned.slice(0, at)}<metadata id="${METADATA_ID}">${escape(json)}</metadata>${cleaned.slice(at)}`;
}

/** Our metadata payload of an SVG document, when it has one. */
export const readSvgMetadata = (text: string): string | undefined =>
  ((match) => (match ? unescape(match[1]) : undefined))(new RegExp(`<metadata id="${METADATA_ID}">([\\s\\S]*?)</metadata>`).exec(text));

/** How many paths a document draws. */
export const svgPathCount = (text: string): number => (text.match(/<path\b/g) ?? []).length;
