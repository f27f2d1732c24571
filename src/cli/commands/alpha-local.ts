import { sessionFilePath } from '../../studio/auth/session-files.js';
import { LANES } from '../../studio/catalog/registry.js';
import { studioPaths } from '../../studio/paths.js';
import { Settings } from '../../studio/settings.js';

/** Where `svc alpha login|logout` work without a studio: the issuer and session file a studio with this environment would use. */
export function inProcessTarget(env: Readonly<Record<string, string | undefined>>): { issuerUrl: string; file: string } {
  const paths = studioPaths(env);
  const endpoint = LANES.alpha.endpoints.issuer;
  const settings = new Settings(paths.configFile).get();
  const issuerUrl = (env[endpoint.env] || settings.upstreams?.['alpha.issuer'] || endpoint.default || '').replace(/\/+$/, '');
  return { issuerUrl, file: sessionFilePath(LANES.alpha, { env, home: paths.home, settings }) };
}
