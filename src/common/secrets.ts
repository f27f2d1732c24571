import { MIN_SECRET_LENGTH, REDACTED, secretMatcher } from './secret-forms.js';

// Text from outside (an upstream's error message, an agent's stderr) can echo
// a credential back. Everything such text passes through on its way to a
// response, an event or a log is masked here, once: first every credential
// we know of, in every spelling it can come back in (secret-forms.ts), then
// anything shaped like a credential.

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

/** The registries of the servers open in this process: every masking removes what they hold. */
const held = new Set<SecretRegistry>();

/**
 * Every credential a server holds (keys from the environment and its config
 * file, session tokens, tokens it minted or received). A registry is held
 * while its server runs: errors are built deep in lanes and transports, where
 * no server context is at hand, so masking consults every held registry.
 */
export class SecretRegistry {
  private readonly values = new Set<string>();
  private matcher: RegExp | undefined;

  /** Registers credentials; cheap for one already known (keys are registered on every use). */
  add(...values: readonly (string | null | undefined)[]): void {
    for (const value of values) {
      if (!value || value.length < MIN_SECRET_LENGTH || this.values.has(value)) continue;
      this.values.add(value);
      this.matcher = undefined;
    }
  }

  mask(text: string): string {
    if (this.values.size === 0) return text;
    this.matcher ??= secretMatcher(this.values);
    return this.matcher ? text.replace(this.matcher, REDACTED) : text;
  }

  /** From now on, every masking in this process removes this registry's credentials. */
  hold(): this {
    held.add(this);
    return this;
  }

  /** The server closed: its credentials are no longer looked for (nor kept). */
  release(): void {
    held.delete(this);
    this.values.clear();
    this.matcher = undefined;
  }
}

type Known = readonly (string | null | undefined)[];

/** Removes every held credential and every `known` one (the credentials a call sent), in every spelling; no shape guessing. */
export function maskCredentials(text: string, known: Known = []): string {
  const matcher = known.length > 0 ? secretMatcher(known.filter((value): value is string => Boolean(value))) : undefined;
  let masked = matcher ? text.replace(matcher, REDACTED) : text;
  for (const registry of held) masked = registry.mask(masked);
  return masked;
}

/** Masks credentials in free text from outside: the known ones (maskCredentials), then credential-shaped runs. */
export function maskSecrets(text: string, known: Known = []): string {
  let masked = maskCredentials(text, known);
  for (const [pattern, replacement] of PATTERNS) masked = masked.replace(pattern, replacement);
  return masked;
}

/** `value` with `mask` applied to every string in it (arrays and plain objects are copied; anything else is kept). */
/** Nesting past which a value is not walked but replaced: a deep vendor answer cannot overflow the stack, nor keep a secret. */
const MASK_MAX_DEPTH = 64;

function mapStrings<T>(value: T, mask: (text: string) => string, depth = 0): T {
  if (typeof value === 'string') return mask(value) as T;
  const walkable = Array.isArray(value) || (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype);
  if (walkable && depth >= MASK_MAX_DEPTH) return '[nested too deep]' as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, mask, depth + 1)) as T;
  if (walkable)
    return Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, mapStrings(item, mask, depth + 1)])) as T;
  return value;
}

/** maskCredentials over every string of a JSON-like value (an error's details). */
export function maskCredentialsIn<T>(value: T, known: Known = []): T {
  if (held.size === 0 && known.length === 0) return value;
  return mapStrings(value, (text) => maskCredentials(text, known));
}

/** maskSecrets over every string of a JSON-like value. */
export const maskSecretsIn = <T>(value: T, known: Known = []): T => mapStrings(value, (text) => maskSecrets(text, known));
