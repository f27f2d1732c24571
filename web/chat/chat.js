// The svc-chat page: sessions, the conversation with live output from
// GET /api/events, and a prompt box. Plain ES module, no build step.
// Every piece of agent text goes through textContent, never innerHTML.

/** Spec (Limits): a break shorter than this reconnects silently; only a longer one shows a notice. */
const DISCONNECT_NOTICE_MS = 8000;
/** Reconnect delays: first, and the cap of the doubling. */
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 4000;

const $ = (selector) => document.querySelector(selector);
const elements = {
  notice: $('#notice'),
  sessions: $('#sessions'),
  newSession: $('#new-session'),
  connection: $('#connection'),
  title: $('#session-title'),
  queue: $('#queue-state'),
  conversation: $('#conversation'),
  form: $('#prompt-form'),
  prompt: $('#prompt'),
  agent: $('#agent'),
  cancel: $('#cancel'),
  goal: $('#goal'),
  goalText: $('#goal-text'),
  orc: $('#orc'),
  orcText: $('#orc-text'),
};

/** Where the page keeps the access token for this tab (sessionStorage: gone with the tab). */
const TOKEN_STORAGE_KEY = 'svc-chat-token';

/**
 * The server's access token (SVC_CHAT_TOKEN), when it has one: taken from the
 * page's URL (`#token=…`, which never reaches the server, or `?token=…`),
 * kept for this tab, and removed from the address bar.
 */
function takeToken() {
  const url = new URL(window.location.href);
  const fragment = new window.URLSearchParams(url.hash.slice(1));
  const fromUrl = fragment.get('token') || url.searchParams.get('token');
  if (fromUrl) {
    fragment.delete('token');
    url.searchParams.delete('token');
    url.hash = fragment.toString();
    window.history.replaceState(null, '', url);
    try {
      window.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    } catch {
      // Storage disabled: the token lasts as long as this page.
    }
    return fromUrl;
  }
  try {
    return window.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

const token = takeToken();

const state = {
  sessions: [],
  currentSessionId: undefined,
  /** Run bubbles of the shown session by trace id. */
  runs: new Map(),
  /** Message ids already shown (events and history may both bring one). */
  shown: new Set(),
  lastEventId: undefined,
  /**
   * While the shown session's history is being fetched: `{ sessionId, buffer }`.
   * Its events wait in `buffer` and are applied over the fetched snapshot.
   * Before the first load the current session is not known yet
   * (`sessionId` undefined): every session's events are held.
   */
  loading: { sessionId: undefined, buffer: [] },
  source: undefined,
  reconnectAttempts: 0,
  reconnectTimer: undefined,
  noticeTimer: undefined,
  brokenSince: undefined,
};

async function api(path, options = {}) {
  const headers = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { ...options, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  if (response.status === 401) showTokenHelp();
  return response;
}

async function apiJson(path, options) {
  const response = await api(path, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body;
}

let tokenHelpShown = false;

/** A 401: the server wants its token, which only the URL can bring. */
function showTokenHelp() {
  if (tokenHelpShown) return;
  tokenHelpShown = true;
  addNote(
    token
      ? 'The server refused the access token this page has. Open the page again with the right one: /#token=<SVC_CHAT_TOKEN>.'
      : 'This server needs its access token. Open the page as /#token=<SVC_CHAT_TOKEN>.',
  );
}

/**
 * Reads an NDJSON response line by line (UTF-8 safe across chunks). Leaving
 * the loop early cancels the response, which closes its connection.
 */
async function* ndjsonLines(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += decoder.decode(value ?? new Uint8Array(), { stream: !done });
      let newline;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) yield JSON.parse(line);
      }
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// ---- rendering -------------------------------------------------------------

function scrollToEnd() {
  elements.conversation.scrollTop = elements.conversation.scrollHeight;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function addNote(text, kind) {
  elements.conversation.append(element('div', `bubble note${kind ? ` ${kind}` : ''}`, text));
  scrollToEnd();
}

/** The instance's goal (a summary from goal_update or /api/status), or null. */
function renderGoal(goal) {
  elements.goal.dataset.status = goal ? goal.status : 'none';
  elements.goal.dataset.stopped = String(Boolean(goal?.autoStopped));
  if (!goal) {
    elements.goalText.textContent = 'none';
    return;
  }
  const extra = goal.autoStopped ? ` — automatic turns stopped: ${goal.autoStopped}` : goal.pauseGate ? ` — pause gate armed: ${goal.pauseGate}` : '';
  elements.goalText.textContent = `${goal.objective} (${goal.status}${goal.continuations ? `, ${goal.continuations} automatic turns` : ''})${extra}`;
}

/** The PABCD orchestration state (orc_state, or /api/status). */
function renderOrc(orc) {
  elements.orc.dataset.phase = orc?.phase ?? 'idle';
  elements.orc.dataset.status = orc?.status ?? 'idle';
  elements.orcText.textContent = !orc || orc.phase === 'idle' ? 'idle' : `${orc.phase} (${orc.status})${orc.task ? ` — ${orc.task}` : ''}`;
}

function addUserMessage(message) {
  if (state.shown.has(message.id)) return;
  state.shown.add(message.id);
  const bubble = element('div', 'bubble user', message.content);
  bubble.dataset.messageId = message.id;
  elements.conversation.append(bubble);
  // The answer appears under its prompt, even while it waits in the queue.
  if (message.traceId) setRunStatus(runBubble(message.traceId), 'waiting');
  scrollToEnd();
}

/** The bubble of one run (thinking, tool calls, text, status), created on first use. */
function runBubble(traceId) {
  let run = state.runs.get(traceId);
  if (run) return run;
  const root = element('div', 'bubble run');
  root.dataset.traceId = traceId;
  run = { root, thinking: element('div', 'thinking'), tools: element('ul', 'tools'), text: element('div', 'text'), status: element('span', 'status') };
  root.append(run.thinking, run.tools, run.text, run.status);
  setRunStatus(run, 'running');
  elements.conversation.append(root);
  state.runs.set(traceId, run);
  return run;
}

const STATUS_LABELS = { waiting: 'waiting…', running: 'running…', ok: '' };

function setRunStatus(run, status, reason) {
  run.root.dataset.status = status;
  run.reason = reason;
  run.status.textContent = STATUS_LABELS[status] ?? `${status}${reason ? `: ${reason}` : ''}`;
}

/** A live run's bubble, or undefined once its saved answer is shown (late events are then stale). */
function liveRun(traceId) {
  const run = runBubble(traceId);
  if (run.final) return undefined;
  if (run.root.dataset.status === 'waiting') setRunStatus(run, 'running');
  return run;
}

function addTool(run, name, input) {
  const summary = input && typeof input === 'object' ? (input.command ?? input.query ?? JSON.stringify(input)) : '';
  run.tools.append(element('li', undefined, `${name} ${String(summary).slice(0, 200)}`));
}

/** A saved assistant message is the final word on its run's text and status. */
function addAssistantMessage(message) {
  if (state.shown.has(message.id)) return;
  state.shown.add(message.id);
  const run = runBubble(message.traceId ?? message.id);
  run.root.dataset.messageId = message.id;
  run.final = true;
  run.text.textContent = message.content;
  setRunStatus(run, message.status ?? 'ok', message.reason);
  scrollToEnd();
}

function renderMessage(message) {
  if (message.role === 'user') addUserMessage(message);
  else addAssistantMessage(message);
}

function renderSessions() {
  elements.sessions.replaceChildren(
    ...state.sessions.map((session) => {
      const item = element('li');
      const button = element('button', undefined, session.title || 'Untitled session');
      button.type = 'button';
      button.dataset.sessionId = session.id;
      button.setAttribute('aria-current', String(session.id === state.currentSessionId));
      button.append(element('small', undefined, `${session.messageCount} messages`));
      button.addEventListener('click', () => switchSession(session.id));
      item.append(button);
      return item;
    }),
  );
  const current = state.sessions.find((session) => session.id === state.currentSessionId);
  elements.title.textContent = current ? current.title || 'Untitled session' : '…';
}

function renderQueue(queue) {
  if (!queue) return;
  const parts = [];
  if (queue.active) parts.push('running');
  if (queue.pending) parts.push(`${queue.pending} waiting`);
  elements.queue.textContent = parts.join(' · ');
}

// ---- loading ---------------------------------------------------------------

async function loadSessions() {
  const body = await apiJson('/api/sessions');
  state.sessions = body.sessions;
  state.currentSessionId = body.currentSessionId;
  renderSessions();
}

/**
 * Shows the current session from its saved messages (after start, a switch,
 * or a replay gap). Events of the session that arrive meanwhile are held and
 * applied over the snapshot (the snapshot may be older than some of them);
 * a running answer's output shown so far is kept.
 */
async function loadConversation() {
  const sessionId = state.currentSessionId;
  // A newer load takes over what an older one held.
  const held = state.loading && (state.loading.sessionId === undefined || state.loading.sessionId === sessionId) ? state.loading.buffer : [];
  const load = { sessionId, buffer: held.filter((event) => event.sessionId === sessionId) };
  state.loading = load;
  let body;
  try {
    body = await apiJson(`/api/sessions/${encodeURIComponent(sessionId)}/messages`);
  } catch (error) {
    if (state.loading === load) {
      state.loading = undefined;
      for (const event of load.buffer) handleEvent(event);
    }
    throw error;
  }
  if (state.loading !== load) return;
  state.loading = undefined;

  const previous = state.runs;
  state.runs = new Map();
  state.shown.clear();
  elements.conversation.replaceChildren();
  for (const message of body.messages) renderMessage(message);
  for (const [traceId, run] of state.runs) {
    const before = previous.get(traceId);
    if (!run.final && before && !before.final) carryOver(before, run);
  }
  const active = body.queue?.activeTraceId && state.runs.get(body.queue.activeTraceId);
  if (active && !active.final) setRunStatus(active, 'running');
  renderQueue(body.queue);
  for (const event of load.buffer) handleEvent(event);
  scrollToEnd();
}

/** A live run's output shown before a reload goes into its new bubble. */
function carryOver(from, to) {
  to.thinking.textContent = from.thinking.textContent;
  to.tools.replaceChildren(...from.tools.childNodes);
  to.text.textContent = from.text.textContent;
  if (from.root.dataset.status !== 'waiting') setRunStatus(to, from.root.dataset.status, from.reason);
}

async function loadAgents() {
  const body = await apiJson('/api/agents');
  elements.agent.replaceChildren(
    ...body.agents.map((agent) => {
      const option = element('option', undefined, `${agent.label}${agent.available ? '' : ' (not installed)'}`);
      option.value = agent.id;
      option.selected = agent.id === body.defaultAgent;
      return option;
    }),
  );
}

/** Instance-wide state: the goal and the orchestration phase. */
async function loadWorkState() {
  const body = await apiJson('/api/status');
  renderGoal(body.goal);
  renderOrc(body.orc);
}

async function refresh() {
  if (state.currentSessionId === undefined) {
    // First load: the session list names the current session.
    await loadSessions();
    await loadConversation();
    return;
  }
  // Both at once: the conversation holds its events from now on (see loadConversation).
  await Promise.all([loadSessions(), loadConversation(), loadWorkState()]);
}

// ---- live events -----------------------------------------------------------

function handleEvent(event) {
  if (event.topic === 'system' && event.event === 'replay_gap') {
    // Some events were lost: the saved state is the truth.
    document.body.dataset.replayGaps = String(Number(document.body.dataset.replayGaps ?? 0) + 1);
    void refresh();
    return;
  }
  // Instance-wide events: shown whatever session is on screen.
  switch (event.event) {
    case 'goal_update':
      renderGoal(event.goal);
      return;
    case 'goal_done':
      addNote('Goal done.', 'goal-note');
      return;
    case 'goal_done_rejected':
      addNote(`Goal not done: ${event.reason}`, 'goal-note');
      return;
    case 'goal_pause_detected':
      addNote(`The agent asked to pause the goal: ${event.reason}`, 'goal-note');
      return;
    case 'goal_pause_gate_pending':
      addNote(`Automatic goal turns stopped (pause confirmed): ${event.reason}`, 'goal-note');
      return;
    case 'orc_state':
      renderOrc(event);
      return;
    default:
      break;
  }
  if (event.event === 'session_switched') {
    state.currentSessionId = event.sessionId;
    void refresh();
    return;
  }
  if (state.loading && state.loading.sessionId === undefined && event.sessionId) {
    state.loading.buffer.push(event);
    return;
  }
  if (event.sessionId !== state.currentSessionId) {
    if (event.event === 'message') void loadSessions();
    return;
  }
  if (state.loading?.sessionId === event.sessionId) {
    // The history is on its way; this event is applied over it (see loadConversation).
    state.loading.buffer.push(event);
    return;
  }
  switch (event.event) {
    case 'message':
      // `id` is the saved message's id (the resume cursor is the frame's own id line).
      if (state.shown.has(event.id)) break;
      // A long message's content is left out of replayed copies: read it from the saved history.
      if (event.omitted?.includes('content')) {
        void loadConversation();
        break;
      }
      renderMessage(event);
      // Titles and message counts change with every saved message.
      void loadSessions();
      break;
    case 'agent_thinking': {
      const run = liveRun(event.traceId);
      if (run) run.thinking.textContent += event.content;
      break;
    }
    case 'agent_output': {
      const run = liveRun(event.traceId);
      if (run) run.text.textContent += event.content;
      break;
    }
    case 'agent_tool': {
      const run = liveRun(event.traceId);
      if (run) addTool(run, event.name, event.input);
      break;
    }
    case 'agent_done': {
      const run = liveRun(event.traceId);
      if (run) setRunStatus(run, event.status, event.reason);
      break;
    }
    case 'queue_update':
      renderQueue(event);
      break;
    case 'steer_started':
      addNote(`Steered: ${event.prompt}`, 'steer-note');
      break;
    default:
      return;
  }
  scrollToEnd();
}

function setConnection(status) {
  document.body.dataset.connection = status;
  elements.connection.textContent = status === 'open' ? 'connected' : status === 'reconnecting' ? 'reconnecting…' : 'connecting…';
}

function onOpen() {
  clearTimeout(state.noticeTimer);
  state.noticeTimer = undefined;
  state.brokenSince = undefined;
  state.reconnectAttempts = 0;
  elements.notice.hidden = true;
  setConnection('open');
}

function onBreak() {
  if (state.brokenSince === undefined) {
    state.brokenSince = Date.now();
    // Only a break that outlasts the threshold is worth telling about.
    state.noticeTimer = setTimeout(() => {
      elements.notice.hidden = false;
      document.body.dataset.noticeShown = String(Number(document.body.dataset.noticeShown ?? 0) + 1);
    }, DISCONNECT_NOTICE_MS);
  }
  setConnection('reconnecting');
}

/**
 * Follows /api/events. On any error the EventSource is closed and reopened
 * here with `?lastEventId=` (the resume cursor), with a short backoff, so
 * both network breaks and refused reconnects are handled the same way.
 */
function connect() {
  const url = new URL('/api/events', window.location.origin);
  if (state.lastEventId) url.searchParams.set('lastEventId', state.lastEventId);
  // EventSource cannot send headers (the server's request log masks a `token` parameter).
  if (token) url.searchParams.set('token', token);
  const source = new EventSource(url);
  state.source = source;
  source.onopen = onOpen;
  source.onmessage = (message) => {
    if (message.lastEventId) state.lastEventId = message.lastEventId;
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    handleEvent(event);
  };
  source.onerror = () => {
    source.close();
    if (state.source !== source) return;
    onBreak();
    const delay = Math.min(RECONNECT_FIRST_MS * 2 ** state.reconnectAttempts, RECONNECT_MAX_MS);
    state.reconnectAttempts += 1;
    document.body.dataset.reconnects = String(Number(document.body.dataset.reconnects ?? 0) + 1);
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = setTimeout(connect, delay);
  };
}

// ---- actions ---------------------------------------------------------------

async function switchSession(sessionId) {
  try {
    await apiJson(`/api/sessions/${encodeURIComponent(sessionId)}/switch`, { method: 'POST', body: {} });
    state.currentSessionId = sessionId;
    await refresh();
  } catch (error) {
    addNote(`Could not switch: ${error.message}`);
  }
}

/** Runs a slash command; its text lines are shown as a note (a /steer run shows up through events). */
async function runCommand(text) {
  const steer = /^\/steer\b/.test(text);
  const response = await api('/api/command', { method: 'POST', body: { text, sessionId: state.currentSessionId, agent: elements.agent.value } });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    addNote(body?.error?.message ?? `HTTP ${response.status}`);
    return;
  }
  // A /steer run's output arrives over /api/events: its headers say it was accepted; free the connection.
  if (steer) {
    await response.body?.cancel();
    return;
  }
  for await (const line of ndjsonLines(response)) {
    if (line.type === 'text') addNote(line.content);
    else if (line.type === 'done' && line.status !== 'ok') addNote(`${text}: ${line.status}${line.reason ? ` — ${line.reason}` : ''}`);
  }
}

/**
 * Sends a prompt. Only the response's headers are read (they name the queued
 * run; the body holds the spec's four line types); then the response is
 * closed, which the server takes as this client leaving: the run goes on and
 * its output arrives over /api/events (for every tab). A response held open
 * per waiting message would use up the browser's six connections per server,
 * and Cancel could not get through.
 */
async function sendMessage(prompt) {
  const response = await api('/api/message', { method: 'POST', body: { prompt, sessionId: state.currentSessionId, agent: elements.agent.value } });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    addNote(`Not sent: ${body?.error?.message ?? `HTTP ${response.status}`}`);
    return;
  }
  document.body.dataset.lastTraceId = response.headers.get('x-chat-trace-id') ?? '';
  await response.body?.cancel();
}

elements.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = elements.prompt.value.trim();
  if (!text) return;
  elements.prompt.value = '';
  const action = text.startsWith('/') ? runCommand(text) : sendMessage(text);
  action.catch((error) => addNote(`Failed: ${error.message}`));
});

elements.prompt.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    elements.form.requestSubmit();
  }
});

elements.cancel.addEventListener('click', () => runCommand('/cancel').catch((error) => addNote(`Failed: ${error.message}`)));

elements.newSession.addEventListener('click', async () => {
  try {
    await apiJson('/api/sessions', { method: 'POST', body: { switch: true } });
    await refresh();
  } catch (error) {
    addNote(`Could not create a session: ${error.message}`);
  }
});

// Events first, so nothing published while the history loads is missed (duplicates are dropped by id).
connect();
Promise.all([loadAgents(), refresh(), loadWorkState()])
  .then(() => (document.body.dataset.ready = 'true'))
  .catch((error) => {
    if (state.loading?.sessionId === undefined) state.loading = undefined;
    addNote(`Could not load: ${error.message}`);
  });
