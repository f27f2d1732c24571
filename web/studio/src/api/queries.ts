import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type {
  CapabilitiesBody,
  HistoryQuery,
  JobRecord,
  KeysStatusBody,
  LaneCapabilities,
  OauthStatusBody,
  ProviderStatus,
  QuotaBody,
  SwitchStatus,
} from './contract';
import { api } from './http';
import type { AssetDetail, DefaultsBody, HealthBody, HistoryGroupsPage, HistoryPage, ProvidersBody, StorageStatus } from './responses';

// Server state: one hook per route the UI reads, all through the query cache.

/** Items per history page (the server allows up to 200). */
export const HISTORY_PAGE_SIZE = 48;
/** Items per session group in the grouped listing. */
export const GROUP_ITEMS = 12;

/**
 * The item listing's filters, as GET /api/history names them; all combine, and
 * the cursor pages within them (they are part of the query key).
 */
export interface HistoryFilter extends Pick<HistoryQuery, 'q' | 'provider' | 'model' | 'kind' | 'since' | 'until' | 'sessionId'> {
  /** One session by title (null: the images without one). */
  session?: string | null;
}

export const queryKeys = {
  health: ['health'] as const,
  capabilities: ['capabilities'] as const,
  providers: ['providers'] as const,
  defaults: ['defaults'] as const,
  storage: ['storage'] as const,
  keysStatus: ['keys', 'status'] as const,
  quota: ['quota'] as const,
  oauthStatus: ['oauth', 'status'] as const,
  authSwitch: (sessionId: string) => ['auth', 'switch', sessionId] as const,
  historyItems: (filter: HistoryFilter) => ['history', 'items', filter] as const,
  historyGroups: ['history', 'groups'] as const,
  asset: (filename: string) => ['history', 'asset', filename] as const,
  job: (requestId: string) => ['job', requestId] as const,
};

export const useHealth = () => useQuery({ queryKey: queryKeys.health, queryFn: () => api<HealthBody>('/api/health'), staleTime: Infinity });

/** The catalog: fixed for the life of the server. */
export const useCapabilities = () =>
  useQuery({ queryKey: queryKeys.capabilities, queryFn: () => api<CapabilitiesBody>('/api/capabilities'), staleTime: Infinity });

/** Lane readiness: read again when the window regains focus (a key may have been set meanwhile). */
export const useProviders = () =>
  useQuery({
    queryKey: queryKeys.providers,
    queryFn: () => api<ProvidersBody>('/api/providers').then((body) => body.providers),
    staleTime: 10_000,
    refetchOnWindowFocus: true,
  });

export const useDefaults = () => useQuery({ queryKey: queryKeys.defaults, queryFn: () => api<DefaultsBody>('/api/defaults') });

export const useStorage = () => useQuery({ queryKey: queryKeys.storage, queryFn: () => api<StorageStatus>('/api/storage/status') });

/** Each key, masked, with the verdict the studio last had (it checks a key it has not seen yet). */
export const useKeysStatus = () =>
  useQuery({ queryKey: queryKeys.keysStatus, queryFn: () => api<KeysStatusBody>('/api/keys/status'), staleTime: 10_000 });

/** Asks the studio to check every key again now (`?verify=1`). */
export const verifyKeys = () => api<KeysStatusBody>('/api/keys/status?verify=1');

/** Usage bars of the accounts the studio signs in with. */
export const useQuota = () => useQuery({ queryKey: queryKeys.quota, queryFn: () => api<QuotaBody>('/api/quota'), staleTime: 30_000 });

/** The chat account session (never its tokens). */
export const useOauthStatus = () => useQuery({ queryKey: queryKeys.oauthStatus, queryFn: () => api<OauthStatusBody>('/api/oauth/status') });

/** How often a waiting device-code sign-in is asked about (the contract's 3 s). */
export const SWITCH_POLL_MS = 3000;

/** A device-code sign-in: polled while it waits (also while the page is hidden: the person is approving it in another tab). */
export const useAuthSwitch = (sessionId: string | undefined) =>
  useQuery({
    queryKey: queryKeys.authSwitch(sessionId ?? ''),
    queryFn: ({ signal }) => api<SwitchStatus>(`/api/auth/switch/${encodeURIComponent(sessionId ?? '')}`, { signal }),
    enabled: sessionId !== undefined,
    refetchInterval: (query) => (query.state.error || (query.state.data && query.state.data.status !== 'pending') ? false : SWITCH_POLL_MS),
    refetchIntervalInBackground: true,
    refetchOnWindowFocus: false,
    retry: 1,
    staleTime: 0,
  });

const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  return search.toString();
};

/** Newest first, page by page over the cursor. */
export const useHistoryItems = (filter: HistoryFilter, enabled = true) =>
  useInfiniteQuery({
    queryKey: queryKeys.historyItems(filter),
    queryFn: ({ pageParam, signal }) =>
      api<HistoryPage>(
        `/api/history?${query({
          limit: HISTORY_PAGE_SIZE,
          cursor: pageParam,
          q: filter.q,
          provider: filter.provider,
          model: filter.model,
          kind: filter.kind,
          since: filter.since,
          until: filter.until,
          ...(filter.sessionId !== undefined
            ? { sessionId: filter.sessionId }
            : { session: filter.session === undefined ? undefined : (filter.session ?? '') }),
        })}`,
        { signal },
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled,
  });

/** Session groups, most recently active first. */
export const useHistoryGroups = (enabled = true) =>
  useInfiniteQuery({
    queryKey: queryKeys.historyGroups,
    queryFn: ({ pageParam, signal }) =>
      api<HistoryGroupsPage>(`/api/history?${query({ groupBy: 'session', limit: 20, groupItems: GROUP_ITEMS, cursor: pageParam })}`, {
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled,
  });

/** One asset with what its file says of itself. */
export const useAssetDetail = (filename: string | undefined) =>
  useQuery({
    queryKey: queryKeys.asset(filename ?? ''),
    queryFn: () => api<AssetDetail>(`/api/history/${encodeURIComponent(filename ?? '')}`),
    enabled: filename !== undefined,
    retry: false,
  });

/** A job's record: usage and timings of an asset while the studio still keeps it. */
export const useJobRecord = (requestId: string | undefined) =>
  useQuery({
    queryKey: queryKeys.job(requestId ?? ''),
    queryFn: () => api<JobRecord>(`/api/jobs/${encodeURIComponent(requestId ?? '')}`),
    enabled: requestId !== undefined,
    retry: false,
    staleTime: Infinity,
  });

/** The lanes of the catalog (not `auto`). */
export const lanesOf = (capabilities: CapabilitiesBody | undefined): LaneCapabilities[] =>
  (capabilities?.providers ?? []).filter((provider): provider is LaneCapabilities => provider.routingMode === false);

export const statusOf = (providers: ProviderStatus[] | undefined, id: string): ProviderStatus | undefined =>
  providers?.find((provider) => provider.id === id);

/** A lane's label from the catalog (its id until the catalog is read). */
export const laneLabel = (capabilities: CapabilitiesBody | undefined, id: string): string =>
  lanesOf(capabilities).find((lane) => lane.id === id)?.label ?? id;

/** The key namespaces a lane's credential takes (none unless it is a key). */
const keyNamespacesOf = (lane: LaneCapabilities): string[] => {
  const { namespaces } = lane.credential;
  return lane.credential.kind === 'key' && Array.isArray(namespaces)
    ? namespaces.filter((name): name is string => typeof name === 'string')
    : [];
};

/** What a key is for, from the catalog: the lane whose credential it is. */
export function keyUse(capabilities: CapabilitiesBody | undefined, namespace: string): string {
  const lane = lanesOf(capabilities).find((candidate) => keyNamespacesOf(candidate).includes(namespace));
  if (!lane) return '';
  const count = keyNamespacesOf(lane).length;
  return count > 1 ? `the ${lane.id} lane (one of its ${count} credentials)` : `the ${lane.id} lane`;
}
