// The manager's limits and defaults, declared once.
export const MANAGER_LIMITS = {
  /** Default port of `svc-chat manager serve` (the studio is 3333, a chat server 3344). */
  defaultPort: 3355,
  requestBodyMaxBytes: 64 * 1024,
  /** Workers followed at most. */
  instancesMax: 200,
  /** Events kept per worker for GET /api/instances/:id/events. */
  recentEventsMax: 200,
  /** Finished turns kept per worker (its timeline on the dashboard). */
  turnsMax: 30,
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
  /**
   * What the manager reads from a worker, at most: one body (health, status, sessions, a message)
   * and one line of its event stream, in bytes. A chat server's largest (a 256 KiB answer, JSON
   * escaped) fits; more is refused and the connection dropped.
   */
  workerReadMaxBytes: 2 * 1024 * 1024,
  /** Any other string kept from a worker (ids, titles, names, statuses, versions, error texts), in characters: ids longer are ignored, other strings cut. */
  workerFieldMaxChars: 200,
  /** Sessions kept per worker; past it the least recently active one is forgotten. */
  sessionsMax: 500,
  /** Event stream: reconnect delays (doubling, with jitter) and the silence (3 of the worker's 15 s heartbeats) after which it is reopened. */
  eventsReconnectMinMs: 1000,
  eventsReconnectMaxMs: 5000,
  eventsIdleTimeoutMs: 45_000,
  /** A launched worker must print its start line within this long. */
  launchTimeoutMs: 20_000,
} as const;
