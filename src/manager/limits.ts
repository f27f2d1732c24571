// The manager's limits and defaults, declared once.
export const MANAGER_LIMITS = {
  /** Default port of `svc-chat manager serve` (the studio is 3333, a chat server 3344). */
  defaultPort: 3355,
  requestBodyMaxBytes: 64 * 1024,
  /** Workers followed at most. */
  instancesMax: 200,
  /** Events kept per worker for GET /api/instances/:id/events. */
  recentEventsMax: 200,
  /** Health samples kept per worker. */
  healthHistoryMax: 120,
  /** How often each worker's /api/health is polled. */
  healthIntervalMs: 5000,
  /** One request to a worker (health, state) gives up after this long. */
  workerRequestTimeoutMs: 3000,
  /** How often the discovery range is probed. */
  discoveryIntervalMs: 10_000,
  /** Ports in one discovery range at most. */
  discoveryPortsMax: 200,
  /** Message text kept in the cache (and sent to the dashboard), in characters. */
  messagePreviewChars: 2000,
  /** Live output kept per session while a run streams, in characters. */
  liveOutputChars: 500,
  /** Sessions whose latest message is read when a worker's state is (re)read. */
  snapshotSessionsMax: 20,
  /** A launched worker must print its start line within this long. */
  launchTimeoutMs: 20_000,
} as const;
