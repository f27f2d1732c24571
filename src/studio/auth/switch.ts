import { randomBytes } from 'node:crypto';
import { ServiceError } from '../errors.js';
import { SWITCH_VARIANTS, type SwitchProvider, type SwitchStarted, type SwitchStatus } from '../api/auth.js';
import type { StudioContext } from '../context.js';
import { LANES } from '../catalog/registry.js';
import type { AccountLogin } from '../lanes/types.js';
import { UpstreamError } from '../upstream/index.js';
import { DeviceCodeError, deviceCodeStartError } from './device-code.js';

// Account switching (`POST /api/auth/switch`): a device-code sign-in the
// studio runs for a client that shows the code and polls the status. The
// studio polls the issuer itself (honouring its interval, slow_down and
// answers); on approval the lane's session file is replaced atomically and
// the lane runs as the new account from its next call.
//
// Bounded: one sign-in waits per account — a new one cancels an older one
// still waiting (both would write the same file), so at most one per account
// is pending. A waiting sign-in ends by itself when its code lapses
// (`expired`); an ended one is answered for KEEP_SETTLED_MS more, then
// forgotten, and at most MAX_SETTLED of them are kept.

const KEEP_SETTLED_MS = 120_000;
const MAX_SETTLED = 50;
/** A sign-in still running this long after its code lapsed is stopped (the poller ends at the lapse itself). */
const OVERRUN_MS = 5000;
/**
 * Sign-ins an account may start per minute. Each start asks the vendor's issuer for a code; a page or
 * script looping on the button would otherwise have the studio hammer the issuer for the account.
 */
export const SIGN_INS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

/** How an account signs in: its lane's device-code login, which saves its session file. */
function signIn(ctx: StudioContext, provider: SwitchProvider, signal: AbortSignal): Promise<AccountLogin> {
  const start = LANES[provider].signIn;
  if (!start) throw new ServiceError('INTERNAL_ERROR', `The ${provider} lane has no sign-in.`);
  return start(ctx, { signal });
}

interface SwitchSession {
  readonly id: string;
  readonly provider: SwitchProvider;
  readonly userCode: string;
  readonly verificationUrl: string;
  readonly expiresAt: number;
  readonly controller: AbortController;
  status: SwitchStatus['status'];
  email?: string;
  error?: { code: string; message: string };
  timer?: NodeJS.Timeout;
}

/** Why a sign-in ended without an account, as its status says it. */
function ending(error: unknown): Pick<SwitchSession, 'status' | 'error'> {
  if (error instanceof DeviceCodeError) {
    if (error.outcome === 'expired') return { status: 'expired' };
    if (error.outcome === 'denied') return { status: 'error', error: { code: 'AUTH_SWITCH_DENIED', message: error.message } };
    const cause = error.cause instanceof UpstreamError ? error.cause.toServiceError() : undefined;
    return {
      status: 'error',
      error: { code: cause?.code === 'NETWORK_FAILED' ? 'NETWORK_FAILED' : 'UPSTREAM_FAILED', message: error.message },
    };
  }
  const mapped =
    error instanceof UpstreamError ? error.toServiceError() : error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR');
  return { status: 'error', error: { code: mapped.code, message: mapped.message } };
}

export class AccountSwitches {
  private readonly sessions = new Map<string, SwitchSession>();
  /** When each account's recent sign-ins started (the last minute's). */
  private readonly startedAt = new Map<SwitchProvider, number[]>();

  constructor(private readonly ctx: StudioContext) {}

  private pending(): SwitchSession[] {
    return [...this.sessions.values()].filter((session) => session.status === 'pending');
  }

  /** Counts a start against the account's minute, or refuses it with when the next one may start. */
  private admit(provider: SwitchProvider): void {
    const now = Date.now();
    const recent = (this.startedAt.get(provider) ?? []).filter((at) => now - at < MINUTE_MS);
    if (recent.length >= SIGN_INS_PER_MINUTE) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0] + MINUTE_MS - now) / 1000));
      this.startedAt.set(provider, recent);
      throw new ServiceError(
        'AUTH_SWITCH_TOO_MANY',
        `The ${provider} account started ${SIGN_INS_PER_MINUTE} sign-ins in the last minute; the next may start in ${retryAfterSeconds} s.`,
        {
          details: { provider, limit: SIGN_INS_PER_MINUTE, windowSeconds: MINUTE_MS / 1000, retryAfterSeconds },
          headers: { 'retry-after': String(retryAfterSeconds) },
        },
      );
    }
    recent.push(now);
    this.startedAt.set(provider, recent);
  }

  async start(provider: SwitchProvider): Promise<SwitchStarted> {
    this.admit(provider);
    const controller = new AbortController();
    let login: AccountLogin;
    try {
      login = await signIn(this.ctx, provider, controller.signal);
    } catch (error) {
      throw deviceCodeStartError(error, `The ${provider} sign-in could not start`);
    }
    // The newest sign-in of an account wins: an older one still waiting would overwrite its file.
    for (const older of this.pending())
      if (older.provider === provider)
        this.stop(older, {
          status: 'error',
          error: { code: 'JOB_CANCELLED', message: 'A newer sign-in of this account replaced this one.' },
        });
    const { authorization } = login;
    const session: SwitchSession = {
      id: randomBytes(16).toString('hex'),
      provider,
      userCode: authorization.userCode,
      verificationUrl: authorization.verificationUrl,
      expiresAt: Date.now() + authorization.expiresInSeconds * 1000,
      controller,
      status: 'pending',
    };
    this.sessions.set(session.id, session);
    this.forgetOldest();
    session.timer = setTimeout(() => this.stop(session, { status: 'expired' }), authorization.expiresInSeconds * 1000 + OVERRUN_MS).unref();
    login.completion.then(
      (account) => this.settle(session, { status: 'complete', ...(account.email ? { email: account.email } : {}) }),
      (error: unknown) => this.settle(session, ending(error)),
    );
    return {
      sessionId: session.id,
      provider,
      flow: 'device',
      variant: SWITCH_VARIANTS[provider],
      userCode: authorization.userCode,
      verificationUrl: authorization.verificationUrl,
      expiresIn: authorization.expiresInSeconds,
      expiresAt: new Date(session.expiresAt).toISOString(),
      interval: authorization.intervalSeconds,
    };
  }

  status(id: string): SwitchStatus {
    const session = this.sessions.get(id);
    if (!session) throw new ServiceError('AUTH_SWITCH_NOT_FOUND', undefined, { details: { sessionId: id } });
    return {
      sessionId: session.id,
      provider: session.provider,
      flow: 'device',
      status: session.status,
      userCode: session.userCode,
      verificationUrl: session.verificationUrl,
      expiresAt: new Date(session.expiresAt).toISOString(),
      ...(session.email ? { email: session.email } : {}),
      ...(session.error ? { error: session.error } : {}),
    };
  }

  /** Stops a waiting sign-in (nothing is saved) and forgets it; an ended one is just forgotten. */
  cancel(id: string): { sessionId: string; cancelled: boolean; status: SwitchStatus['status'] } {
    const session = this.sessions.get(id);
    if (!session) throw new ServiceError('AUTH_SWITCH_NOT_FOUND', undefined, { details: { sessionId: id } });
    const cancelled = session.status === 'pending';
    const { status } = session;
    // Settled first, so the poller's end (the abort) is not recorded as how it ended.
    session.status = cancelled ? 'error' : session.status;
    session.controller.abort(new ServiceError('JOB_CANCELLED', 'The sign-in was cancelled.'));
    clearTimeout(session.timer);
    this.sessions.delete(id);
    return { sessionId: id, cancelled, status };
  }

  /** Shutdown: every waiting sign-in stops. */
  close(): void {
    for (const session of this.sessions.values()) {
      session.controller.abort(new ServiceError('JOB_CANCELLED', 'The studio is stopping.'));
      clearTimeout(session.timer);
    }
    this.sessions.clear();
  }

  /** Keeps at most MAX_SETTLED ended sign-ins (the oldest go first; a Map keeps insertion order). */
  private forgetOldest(): void {
    const settled = [...this.sessions.values()].filter((session) => session.status !== 'pending');
    for (const session of settled.slice(0, Math.max(0, settled.length - MAX_SETTLED))) {
      clearTimeout(session.timer);
      this.sessions.delete(session.id);
    }
  }

  /** Ends a waiting sign-in now (its poller stops; a result that arrives later is ignored). */
  private stop(session: SwitchSession, end: Pick<SwitchSession, 'status' | 'error'>): void {
    if (session.status !== 'pending') return;
    session.controller.abort(new ServiceError('JOB_CANCELLED', 'The sign-in was stopped.'));
    this.settle(session, end);
  }

  /** Records how a sign-in ended (once), and forgets it KEEP_SETTLED_MS later. */
  private settle(session: SwitchSession, end: Partial<Pick<SwitchSession, 'status' | 'error' | 'email'>>): void {
    if (session.status !== 'pending') return;
    Object.assign(session, end);
    clearTimeout(session.timer);
    session.timer = setTimeout(() => this.sessions.delete(session.id), KEEP_SETTLED_MS).unref();
  }
}
