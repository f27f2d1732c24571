import { ServiceError } from '../errors.js';

// HTTP preconditions on a graph (RFC 9110 §8.8.3, §13.1.1): the graph's
// version is its entity tag, strong, written in quotes ("7"). A save sends it
// back in If-Match; `*` matches any current graph. Weak tags never match
// (If-Match compares strongly). The spec says "If-Match with the current
// version", and clients written from it send the version bare (`3`): a bare
// decimal version is read as that strong tag.

/** The ETag of a graph version. */
export const etagOf = (version: number): string => `"${version}"`;

export type IfMatch =
  { readonly any: true } | { readonly any: false; readonly tags: readonly { readonly weak: boolean; readonly value: string }[] };

/** One entity tag at the start of `text`, then a comma or the end. */
const ENTITY_TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/;
/** A bare version (the spec's wording), then a comma or the end. */
const BARE_VERSION = /^\s*(\d{1,15})\s*(?:,|$)/;

/**
 * The If-Match header: undefined when absent or blank (then the save is
 * refused with 428), BAD_REQUEST when it is not a list of entity tags.
 */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  const text = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
  if (text === '') return undefined;
  if (text === '*') return { any: true };
  const tags: { weak: boolean; value: string }[] = [];
  let rest = text;
  while (rest.trim() !== '') {
    const bare = BARE_VERSION.exec(rest);
    const match = bare ? undefined : ENTITY_TAG.exec(rest);
    if (bare) {
      tags.push({ weak: false, value: String(Number(bare[1])) });
      rest = rest.slice(bare[0].length);
      continue;
    }
    if (!match) {
      throw new ServiceError(
        'BAD_REQUEST',
        `If-Match must be the graph's version, bare or as a quoted entity tag, e.g. If-Match: "3" or If-Match: 3 (got ${JSON.stringify(text.slice(0, 80))}).`,
        {
          details: { field: 'If-Match', valid: '<version> or "<version>" (the ETag of GET /api/sessions/:id), or *' },
        },
      );
    }
    tags.push({ weak: Boolean(match[1]), value: match[2] });
    rest = rest.slice(match[0].length);
  }
  return { any: false, tags };
}

/** Whether the precondition holds for the current version (strong comparison). */
export const ifMatchHolds = (condition: IfMatch, version: number): boolean =>
  condition.any || condition.tags.some((tag) => !tag.weak && tag.value === String(version));

/** What the client sent, for an error's details. */
export const describeIfMatch = (condition: IfMatch): string =>
  condition.any ? '*' : condition.tags.map((tag) => `${tag.weak ? 'W/' : ''}"${tag.value}"`).join(', ');
