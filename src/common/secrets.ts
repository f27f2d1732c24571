// Text from outside (an upstream's error message, an agent's stderr) can echo
// a credential back. Everything such text passes through on its way to a
// response, an event or a log is masked here, once.

const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // Authorization values, whatever the scheme's token looks like.
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, '$1 [redacted]'],
  // JSON Web Tokens (OAuth access and id tokens).
  [/\beyJ[\w-]{6,}\.[\w-]{6,}\.[\w-]*/g, '[redacted-jwt]'],
  // Key-shaped values: sk-…, pst-…, apikey-…, key-…
  [/\b(sk|pst|apikey|key|rk|pk)[-_][\w-]{8,}/gi, '$1-[redacted]'],
  // Any long run of token characters (base64, hex, opaque tokens).
  [/[A-Za-z0-9_\-+/=]{32,}/g, '[redacted]'],
];

/** Masks credentials in free text; `known` values (the credential a call sent) are removed verbatim first. */
export function maskSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let masked = text;
  for (const value of known) {
    if (value && value.length >= 6) masked = masked.split(value).join('[redacted]');
  }
  for (const [pattern, replacement] of PATTERNS) masked = masked.replace(pattern, replacement);
  return masked;
}
