import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES as CHAT_CODES, ServiceError as ChatError } from '../../src/chat/errors.js';
import { EXIT_CODES, SHARED_CODES, ServiceError } from '../../src/common/errors.js';
import { parseWith } from '../../src/common/validation.js';
import { ERROR_CODES as MANAGER_CODES, ServiceError as ManagerError } from '../../src/manager/errors.js';
import { exitCodeFor, ERROR_CODES as STUDIO_CODES, ServiceError as StudioError } from '../../src/studio/errors.js';

// Each server has one table of codes: the shared ones (common/errors.ts) and its own. One thrown by common
// code is every server's; one of a server's own codes is that server's alone.

const failedParse = (): unknown => {
  try {
    parseWith(z.object({ n: z.number() }).strict(), { n: 'x' });
  } catch (error) {
    return error;
  }
  throw new Error('parseWith accepted a bad value');
};

describe('the error tables', () => {
  it('each server table holds the shared codes as declared, and only its own besides', () => {
    for (const table of [STUDIO_CODES, CHAT_CODES, MANAGER_CODES] as Record<string, unknown>[]) {
      for (const [code, spec] of Object.entries(SHARED_CODES)) expect(table[code]).toEqual(spec);
    }
    expect(Object.hasOwn(STUDIO_CODES, 'JOB_NOT_FOUND') && Object.hasOwn(STUDIO_CODES, 'ALPHA_MASK_UNSUPPORTED')).toBe(true);
    expect(Object.hasOwn(STUDIO_CODES, 'GOAL_ACTIVE') || Object.hasOwn(STUDIO_CODES, 'INSTANCE_EXISTS')).toBe(false);
    expect(
      Object.keys(CHAT_CODES)
        .filter((code) => !Object.hasOwn(SHARED_CODES, code))
        .sort(),
    ).toEqual([
      'GOAL_ACTIVE',
      'GOAL_EVIDENCE_REQUIRED',
      'GOAL_NOT_FOUND',
      'GOAL_STATE_CONFLICT',
      'ORC_PHASE_RUNNING',
      'ORC_TRANSITION_INVALID',
      'SESSION_BUSY',
    ]);
    expect(
      Object.keys(MANAGER_CODES)
        .filter((code) => !Object.hasOwn(SHARED_CODES, code))
        .sort(),
    ).toEqual(['INSTANCE_EXISTS', 'INSTANCE_NOT_FOUND', 'INSTANCE_NOT_MANAGED', 'INSTANCE_UNREACHABLE', 'INSTANCE_URL_NOT_ALLOWED']);
  });

  it('an error of common code is every server’s; a server’s own code is its alone', () => {
    const shared = failedParse();
    expect(shared).toBeInstanceOf(ServiceError);
    expect(shared instanceof StudioError && shared instanceof ChatError && shared instanceof ManagerError).toBe(true);
    const goal = new ChatError('GOAL_ACTIVE');
    expect(goal.status).toBe(409);
    expect(goal instanceof ChatError && goal instanceof ServiceError).toBe(true);
    expect(goal instanceof StudioError || goal instanceof ManagerError).toBe(false);
    expect(new Error('plain') instanceof StudioError).toBe(false);
  });

  it('builds a server code with its status, and keeps its class when a credential is masked', () => {
    const error = new StudioError('TRACE_TIMEOUT', 'slow with key hunter2-key-0123456789', { details: { said: 'hunter2-key-0123456789' } });
    expect(error.status).toBe(504);
    const masked = error.withSecretsMasked(['hunter2-key-0123456789']);
    expect(masked.message).not.toContain('hunter2-key-0123456789');
    expect(JSON.stringify(masked.details)).not.toContain('hunter2-key-0123456789');
    expect(masked).toBeInstanceOf(StudioError);
    expect(Object.getPrototypeOf(masked)).toBe(StudioError.prototype);
    expect(masked.code).toBe('TRACE_TIMEOUT');
    expect(masked.toBody().error.code).toBe('TRACE_TIMEOUT');
  });

  it('the common class refuses a code outside its table', () => {
    expect(() => new ServiceError('JOB_NOT_FOUND' as never)).toThrow(TypeError);
  });

  it('parseWith answers a server code through that server’s class', () => {
    let refused: unknown;
    try {
      parseWith(z.object({ n: z.number() }), { n: 'x' }, { code: 'INVALID_SETTING', errors: StudioError });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StudioError);
    expect(refused).toMatchObject({ code: 'INVALID_SETTING', status: 400, details: { field: 'n' } });
  });

  it('the CLI derives its exit code from the studio table', () => {
    expect(exitCodeFor('TRACE_TIMEOUT')).toBe(EXIT_CODES.timeout);
    expect(exitCodeFor('API_KEY_REQUIRED')).toBe(EXIT_CODES.auth);
    expect(exitCodeFor('FORBIDDEN_HOST')).toBe(EXIT_CODES.auth);
    expect(exitCodeFor('GOAL_ACTIVE')).toBe(EXIT_CODES.internal);
    expect(exitCodeFor(undefined)).toBe(EXIT_CODES.internal);
  });
});
