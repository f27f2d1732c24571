import type { QuotaResult } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { laneLabel, useCapabilities, useQuota } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatTime } from '../../components/format';

const WINDOW_LABELS: Record<string, string> = {
  '5h': '5 hours',
  '7d': '7 days',
  monthly: 'Month',
  weekly: 'Week',
  'v5-battery': 'Battery',
};

const usd = (value: number) => `$${value.toFixed(2)}`;

function QuotaCard({ id, title, result }: { id: string; title: string; result: QuotaResult }) {
  const account = [result.account?.email, result.account?.plan].filter(Boolean).join(' · ');
  return (
    <li
      className="quota-card"
      id={`quota-${id}`}
      data-provider={id}
      data-authenticated={result.authenticated}
      data-error={result.error === true}
    >
      <div className="lane-name">
        <strong>{title}</strong>
        {account && <span className="muted">{account}</span>}
        {!result.authenticated && <span className="state-badge quota-signed-out">not signed in</span>}
      </div>
      {result.error && (
        <p className="quota-error" role="alert">
          The usage could not be read{result.reason ? `: ${result.reason}` : '.'}
        </p>
      )}
      {!result.error && !result.authenticated && result.reason && <p className="hint">{result.reason}</p>}
      {result.windows.length > 0 && (
        <ul className="quota-bars">
          {result.windows.map((bar) => {
            const label = `${title}, ${WINDOW_LABELS[bar.label] ?? bar.label}: ${Math.round(bar.percent)}% used`;
            return (
              <li key={bar.label} className="quota-bar" data-window={bar.label}>
                <span className="quota-label">{WINDOW_LABELS[bar.label] ?? bar.label}</span>
                <meter min={0} max={100} low={60} high={85} optimum={0} value={bar.percent} aria-label={label} />
                <span className="quota-value">
                  {Math.round(bar.percent)}% used
                  {bar.resetsAt ? ` · resets ${formatTime(bar.resetsAt)}` : ''}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {result.billing && (
        <div className="quota-bar quota-billing">
          <span className="quota-label">Billing</span>
          <meter
            min={0}
            max={Math.max(result.billing.limitUsd, result.billing.usedUsd, 0.01)}
            low={result.billing.limitUsd * 0.6}
            high={result.billing.limitUsd * 0.85}
            optimum={0}
            value={result.billing.usedUsd}
            aria-label={`${title} billing: ${usd(result.billing.usedUsd)} of ${usd(result.billing.limitUsd)} used`}
          />
          <span className="quota-value">
            {usd(result.billing.usedUsd)} of {usd(result.billing.limitUsd)} used
          </span>
        </div>
      )}
      {result.epsilonAccount && (
        <p className="hint">
          Subscription {result.epsilonAccount.active ? 'active' : 'inactive'} · {result.epsilonAccount.fixedCredits} fixed and{' '}
          {result.epsilonAccount.purchasedCredits} purchased credits
          {result.epsilonAccount.isNegative ? ' · balance negative' : ''}
        </p>
      )}
    </li>
  );
}

/** Usage bars of the accounts the studio signs in with. */
export function QuotaSection() {
  const quota = useQuota();
  const capabilities = useCapabilities();
  return (
    <section className="settings-section" id="quota" aria-labelledby="quota-title" aria-busy={quota.isFetching}>
      <div className="section-head">
        <h2 id="quota-title">Quota</h2>
        <button type="button" className="ghost" onClick={() => void quota.refetch()} disabled={quota.isFetching}>
          {quota.isFetching ? 'Reading…' : 'Read again'}
        </button>
      </div>
      {quota.error && <ErrorNotice error={toErrorPayload(quota.error)} />}
      {quota.data && (
        <ul className="lane-list quota-list">
          {/* One bar per lane with a quota probe, in the answer's order, titled by the lane. */}
          {Object.entries(quota.data).map(([id, result]) => (
            <QuotaCard key={id} id={id} title={`${laneLabel(capabilities.data, id)} (${id})`} result={result} />
          ))}
        </ul>
      )}
    </section>
  );
}
