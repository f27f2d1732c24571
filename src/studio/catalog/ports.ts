// The spec's "runtime ports" of GET /api/providers: each lane's upstream origin
// and port (the scheme's default when the URL names none), and the studio's own.

export interface RuntimePort {
  readonly origin: string;
  readonly port: number;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** The origin and port of a base URL; null when there is none or it is not an http(s) URL. */
export function runtimePort(url: string | null | undefined): RuntimePort | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : DEFAULT_PORTS[parsed.protocol];
    return port === undefined ? null : { origin: parsed.origin, port };
  } catch {
    return null;
  }
}
