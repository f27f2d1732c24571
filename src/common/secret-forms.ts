// The spellings in which a credential can come back. A vendor that echoes
// what it was sent may quote it verbatim, URL-encoded (it read it from a query
// or a form body), JSON-escaped, base64 (a Basic header, a token it decoded:
// standard or url-safe, alone or inside a longer encoded run) and in any case
// (a message that upper-cases what it quotes). One matcher covers them all.

/** Shorter values are not credentials, and masking them would mask ordinary words. */
export const MIN_SECRET_LENGTH = 8;

export const REDACTED = '[redacted]';

const urlSafe = (base64: string): string => base64.replace(/\+/g, '-').replace(/\//g, '_');

/**
 * The base64 characters a value's bytes alone decide, at each of the three
 * alignments it can have inside a longer encoded run (`user:key` in a Basic
 * header): whatever precedes or follows it only changes the edge characters.
 */
function base64Runs(bytes: Buffer): string[] {
  const runs: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    runs.push(encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6)));
  }
  return runs;
}

/** Every spelling of `secret` we match (case is ignored by the matcher). */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = [bytes.toString('base64'), ...base64Runs(bytes)];
  const forms = [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ v: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    ...base64,
    ...base64.map(urlSafe),
    ...base64.map((form) => encodeURIComponent(form)),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One case-insensitive matcher of every form of every secret (longest first, so a whole form wins over its part); undefined when there is none. */
export function secretMatcher(secrets: Iterable<string>): RegExp | undefined {
  const forms = new Set<string>();
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) for (const form of secretForms(secret)) forms.add(form);
  if (forms.size === 0) return undefined;
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(alternatives.join('|'), 'gi');
}
