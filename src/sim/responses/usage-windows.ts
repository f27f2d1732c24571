// The subscription backend's usage windows: reported on every backend answer
// as `x-codex-*` headers, in the optional `codex.rate_limits` stream event and
// by `GET {BACKEND_BASE}/wham/usage` (contract §7 and the quota probe contract).

export interface UsageWindowsOptions {
  /** Starting used percent of the 5-hour window (default 12.5). */
  readonly primaryUsedPercent?: number;
  /** Starting used percent of the weekly window (default 4). */
  readonly secondaryUsedPercent?: number;
  /** Percent each successful generation adds to both windows (default 0: steady numbers for tests). */
  readonly percentPerRequest?: number;
  readonly planType: string;
}

const PRIMARY_WINDOW_MINUTES = 300;
const SECONDARY_WINDOW_MINUTES = 7 * 24 * 60;
const CREDITS_BALANCE = '10.00';

export class UsageWindows {
  private primary: number;
  private secondary: number;
  private readonly perRequest: number;
  private readonly startedAt = Math.floor(Date.now() / 1000);

  constructor(private readonly options: UsageWindowsOptions) {
    this.primary = options.primaryUsedPercent ?? 12.5;
    this.secondary = options.secondaryUsedPercent ?? 4;
    this.perRequest = options.percentPerRequest ?? 0;
  }

  /** Counts one billable request. */
  consume(): void {
    this.primary = Math.min(100, this.primary + this.perRequest);
    this.secondary = Math.min(100, this.secondary + this.perRequest / 10);
  }

  /** Sets the windows' used percents (the control route `PUT /__sim/usage`: tests and the demo choose the bars). */
  set(values: { readonly primaryUsedPercent?: number; readonly secondaryUsedPercent?: number }): void {
    if (values.primaryUsedPercent !== undefined) this.primary = values.primaryUsedPercent;
    if (values.secondaryUsedPercent !== undefined) this.secondary = values.secondaryUsedPercent;
  }

  /** The used percents as they stand. */
  get values(): { primaryUsedPercent: number; secondaryUsedPercent: number } {
    return { primaryUsedPercent: this.primary, secondaryUsedPercent: this.secondary };
  }

  /** True once the 5-hour window is used up. */
  get exhausted(): boolean {
    return this.primary >= 100;
  }

  private resetAt(windowMinutes: number): number {
    return this.startedAt + windowMinutes * 60;
  }

  get primaryResetsInSeconds(): number {
    return Math.max(0, this.resetAt(PRIMARY_WINDOW_MINUTES) - Math.floor(Date.now() / 1000));
  }

  headers(): Record<string, string> {
    return {
      'x-codex-primary-used-percent': String(this.primary),
      'x-codex-primary-window-minutes': String(PRIMARY_WINDOW_MINUTES),
      'x-codex-primary-reset-at': String(this.resetAt(PRIMARY_WINDOW_MINUTES)),
      'x-codex-secondary-used-percent': String(this.secondary),
      'x-codex-secondary-window-minutes': String(SECONDARY_WINDOW_MINUTES),
      'x-codex-secondary-reset-at': String(this.resetAt(SECONDARY_WINDOW_MINUTES)),
      'x-codex-credits-has-credits': 'true',
      'x-codex-credits-unlimited': 'false',
      'x-codex-credits-balance': CREDITS_BALANCE,
      'x-codex-active-limit': 'codex',
    };
  }

  rateLimitsEvent(): Record<string, unknown> {
    return {
      type: 'codex.rate_limits',
      plan_type: this.options.planType,
      rate_limits: {
        primary: { used_percent: this.primary, window_minutes: PRIMARY_WINDOW_MINUTES, reset_at: this.resetAt(PRIMARY_WINDOW_MINUTES) },
        secondary: {
          used_percent: this.secondary,
          window_minutes: SECONDARY_WINDOW_MINUTES,
          reset_at: this.resetAt(SECONDARY_WINDOW_MINUTES),
        },
      },
      credits: { has_credits: true, unlimited: false, balance: CREDITS_BALANCE },
      metered_limit_name: 'codex',
    };
  }

  usageBody(email: string): Record<string, unknown> {
    const window = (used: number, minutes: number) => ({
      used_percent: used,
      limit_window_seconds: minutes * 60,
      reset_after_seconds: Math.max(0, this.resetAt(minutes) - Math.floor(Date.now() / 1000)),
      reset_at: this.resetAt(minutes),
    });
    return {
      email,
      plan_type: this.options.planType,
      rate_limit: {
        allowed: !this.exhausted,
        limit_reached: this.exhausted,
        primary_window: window(this.primary, PRIMARY_WINDOW_MINUTES),
        secondary_window: window(this.secondary, SECONDARY_WINDOW_MINUTES),
      },
      credits: { has_credits: true, unlimited: false, balance: CREDITS_BALANCE },
    };
  }
}
