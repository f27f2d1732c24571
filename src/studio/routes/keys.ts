import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import { parseWith } from '../../common/validation.js';
import { cloudSaveRequest, keySaveRequest, MANAGED_KEY_NAMESPACES, type KeyChangeBody } from '../api/keys.js';
import { KEY_NAMESPACES, type KeyNamespace } from '../auth/key-namespaces.js';
import type { StudioContext } from '../context.js';
import { checkKey, KEY_CHECKS, talksToVendor } from '../keys/checks.js';
import { isEnvironmentKey, keysStatus, keyStatus, rememberCheck } from '../keys/status.js';
import type { StudioRoutes } from './plugin.js';

// Keys (spec: Keys, quota, account switching): status with live checks, and
// saving or removing the spec's four. A key is checked against its vendor
// before it is saved, and nothing is saved unless the vendor took it. A key
// is never answered, logged or put in an error: only masked.

/** A save's check gets this long (longer than a status check: the person waits for it). */
const SAVE_CHECK_TIMEOUT_MS = 10_000;

const statusQuery = lazy(() => z.looseObject({ verify: z.enum(['1', 'true', '0', 'false']).optional() }));
const providerParams = lazy(() => z.object({ provider: z.string() }));

/** The namespace a route names; only the spec's four have key routes. */
function managedNamespace(provider: string): KeyNamespace {
  if ((MANAGED_KEY_NAMESPACES as readonly string[]).includes(provider)) return provider as KeyNamespace;
  const other =
    provider in KEY_NAMESPACES
      ? ` ${provider} keys are set with ${KEY_NAMESPACES[provider as KeyNamespace].env} or under "keys" in config.json.`
      : '';
  throw new ServiceError('BAD_REQUEST', `provider: must be one of ${MANAGED_KEY_NAMESPACES.join(', ')}.${other}`, {
    details: { field: 'provider', valid: MANAGED_KEY_NAMESPACES },
  });
}

function refuseEnvironmentKey(ctx: StudioContext, namespace: KeyNamespace): void {
  if (!isEnvironmentKey(ctx, namespace)) return;
  const variable = KEY_NAMESPACES[namespace].env;
  throw new ServiceError(
    'ENV_KEY_IMMUTABLE',
    `The ${namespace} key comes from the environment (${variable}) and cannot be changed or removed here; change or unset ${variable} and restart the studio.`,
    {
      details: { provider: namespace, env: variable },
    },
  );
}

/** The value a save brings, checked for shape (never echoed): a key, or a service-account key file. */
function valueToSave(ctx: StudioContext, namespace: KeyNamespace, body: unknown): string {
  if (namespace === 'cloud') {
    const { serviceAccountJson } = parseWith(cloudSaveRequest, body);
    try {
      KEY_CHECKS.cloud.parse?.(serviceAccountJson, 'serviceAccountJson');
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      throw new ServiceError('BAD_REQUEST', error.message, {
        details: { field: `serviceAccountJson${error.details?.field ? `.${String(error.details.field)}` : ''}` },
      });
    }
    return serviceAccountJson;
  }
  const { apiKey } = parseWith(keySaveRequest, body);
  const check = KEY_CHECKS[namespace];
  // The vendor's own form applies when the studio talks to the vendor; a proxy or compatible server has keys of its own.
  if (check.form && talksToVendor(ctx, check) && !check.form.pattern.test(apiKey)) {
    throw new ServiceError('BAD_REQUEST', `apiKey: does not look like a ${namespace} key (a ${namespace} key ${check.form.description}).`, {
      details: { field: 'apiKey', provider: namespace },
    });
  }
  return apiKey;
}

export const keyRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/keys/status', async (request) => {
    const { verify } = parseWith(statusQuery, request.query, { what: 'query parameter' });
    return keysStatus(ctx, { verify: verify === '1' || verify === 'true' });
  });

  app.put('/api/keys/:provider', async (request): Promise<KeyChangeBody> => {
    const namespace = managedNamespace(parseWith(providerParams, request.params).provider);
    refuseEnvironmentKey(ctx, namespace);
    const value = valueToSave(ctx, namespace, request.body);
    const outcome = await checkKey(ctx, namespace, value, { timeoutMs: SAVE_CHECK_TIMEOUT_MS });
    if (outcome.verdict !== 'valid') {
      const error = outcome.error ?? new ServiceError('UPSTREAM_FAILED', outcome.reason);
      throw new ServiceError(error.code, `The ${namespace} key was not saved: ${error.message}`, {
        details: { ...error.details, provider: namespace },
        headers: error.headers,
      });
    }
    ctx.keyStore.save(namespace, value);
    rememberCheck(ctx, namespace, value, outcome);
    return { provider: namespace, ...(await keyStatus(ctx, namespace)) };
  });

  app.delete('/api/keys/:provider', async (request): Promise<KeyChangeBody> => {
    const namespace = managedNamespace(parseWith(providerParams, request.params).provider);
    refuseEnvironmentKey(ctx, namespace);
    const removed = ctx.keyStore.remove(namespace);
    return { provider: namespace, removed, ...(await keyStatus(ctx, namespace)) };
  });
};
