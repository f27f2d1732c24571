// What the page shows, kept outside React: the sessions, the shown session's
// conversation built from its saved messages and the live events of
// /api/events, the queue, the goal and the PABCD phase. Every change bumps
// `version`; components read it through useChat (useSyncExternalStore).
import { useSyncExternalStore } from 'react';
import type { ChannelEvent, ConnectionState } from '../../shared/event-stream';
import { errorOf, json, ndjsonLines, request } from './api';
import type {
  AgentInfo,
  AgentsAnswer,
  ChatMessage,
  ChatSession,
  GoalView,
  MessagesAnswer,
  OrcState,
  QueueState,
  SessionsAnswer,
  StatusAnswer,
} from './contract';

export interface ToolCall {
  name: string;
  input: unknown;
}

/** One run's bubble: live output until its saved answer (the final word) arrives. */
export interface RunView {
  traceId: string;
  /** `waiting` (queued), `running`, or how it ended. */
  status: string;
  reason?: string;
  thinking: string;
  tools: ToolCall[];
  text: string;
  final: boolean;
  agent?: string;
  messageId?: string;
  /** When it started running here (for the elapsed time), and when its answer was saved. */
  startedAt?: number;
  at?: string;
  /** Bumped on every change (the bubble re-renders only then). */
  rev: number;
}

export type Item =
  | { kind: 'user'; key: string; message: ChatMessage }
  | { kind: 'automatic'; key: string; message: ChatMessage }
  | { kind: 'run'; key: string; traceId: string }
  | { kind: 'note'; key: string; text: string; tone?: 'goal' | 'steer' | 'command'; pre?: boolean };

interface Loading {
  sessionId: string | undefined;
  buffer: ChannelEvent[];
}

let noteCount = 0;

export class ChatModel {
  version = 0;
  ready = false;
  sessions: ChatSession[] = [];
  currentSessionId: string | undefined;
  items: Item[] = [];
  runs = new Map<string, RunView>();
  queue: QueueState | undefined;
  goal: GoalView | null = null;
  orc: OrcState | null = null;
  agents: AgentInfo[] = [];
  agent = '';
  connection: ConnectionState = 'connecting';
  notice = false;
  tokenHelpShown = false;
  private shown = new Set<string>();
  /**
   * While the shown session's history is being fetched: its events wait in
   * `buffer` and are applied over the fetched snapshot. Before the first load
   * the current session is not known yet (`sessionId` undefined): every
   * session's events are held.
   */
  private loading: Loading | undefined = { sessionId: undefined, buffer: [] };
  private listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  changed(): void {
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  get currentSession(): ChatSession | undefined {
    return this.sessions.find((session) => session.id === this.currentSessionId);
  }

  // ---- conversation ------------------------------------------------------

  addNote(text: string, tone?: 'goal' | 'steer' | 'command', pre = false): void {
    noteCount += 1;
    this.items = [...this.items, { kind: 'note', key: `note-${noteCount}`, text, tone, pre }];
    this.changed();
  }

  private run(traceId: string): RunView {
    let run = this.runs.get(traceId);
    if (run) return run;
    run = { traceId, status: 'running', thinking: '', tools: [], text: '', final: false, rev: 0, startedAt: Date.now() };
    this.runs.set(traceId, run);
    this.items = [...this.items, { kind: 'run', key: `run-${traceId}`, traceId }];
    return run;
  }

  private touch(run: RunView): void {
    run.rev += 1;
  }

  /** A live run's bubble, or undefined once its saved answer is shown (late events are then stale). */
  private liveRun(traceId: string): RunView | undefined {
    const run = this.run(traceId);
    if (run.final) return undefined;
    if (run.status === 'waiting') Object.assign(run, { status: 'running', startedAt: Date.now() });
    this.touch(run);
    return run;
  }

  private addMessage(message: ChatMessage): void {
    if (this.shown.has(message.id)) return;
    this.shown.add(message.id);
    if (message.role === 'user') {
      const kind = message.automatic ? 'automatic' : 'user';
      this.items = [...this.items, { kind, key: `message-${message.id}`, message }];
      // The answer appears under its prompt, even while it waits in the queue.
      if (message.traceId) {
        const run = this.run(message.traceId);
        if (!run.final && run.status === 'running' && !run.text && !run.thinking && run.tools.length === 0) run.status = 'waiting';
        run.agent ??= message.agent;
      }
      return;
    }
    const run = this.run(message.traceId ?? message.id);
    Object.assign(run, {
      messageId: message.id,
      final: true,
      text: message.content,
      status: message.status ?? 'ok',
      reason: message.reason,
      agent: message.agent ?? run.agent,
      at: message.createdAt,
    });
    this.touch(run);
  }

  // ---- loading -----------------------------------------------------------

  async loadSessions(): Promise<void> {
    const body = await json<SessionsAnswer>('/api/sessions');
    this.sessions = body.sessions;
    this.currentSessionId ??= body.currentSessionId;
    this.changed();
  }

  /**
   * Shows the current session from its saved messages (after start, a switch,
   * or a replay gap). Events of the session that arrive meanwhile are held and
   * applied over the snapshot; a running answer's output shown so far is kept.
   */
  async loadConversation(): Promise<void> {
    const sessionId = this.currentSessionId;
    const held = this.loading && (this.loading.sessionId === undefined || this.loading.sessionId === sessionId) ? this.loading.buffer : [];
    const load: Loading = { sessionId, buffer: held.filter((event) => event.sessionId === sessionId) };
    this.loading = load;
    let body: MessagesAnswer;
    try {
      body = await json<MessagesAnswer>(`/api/sessions/${encodeURIComponent(String(sessionId))}/messages`);
    } catch (error) {
      if (this.loading === load) {
        this.loading = undefined;
        for (const event of load.buffer) this.handleEvent(event);
      }
      throw error;
    }
    if (this.loading !== load) return;
    this.loading = undefined;

    const previous = this.runs;
    this.runs = new Map();
    this.items = [];
    this.shown.clear();
    for (const message of body.messages) this.addMessage(message);
    for (const [traceId, run] of this.runs) {
      const before = previous.get(traceId);
      // A live run's output shown before the reload stays.
      if (!run.final && before && !before.final) {
        Object.assign(run, { thinking: before.thinking, tools: before.tools, text: before.text, startedAt: before.startedAt });
        if (before.status !== 'waiting') Object.assign(run, { status: before.status, reason: before.reason });
      }
    }
    const active = body.queue?.activeTraceId ? this.runs.get(body.queue.activeTraceId) : undefined;
    if (active && !active.final) active.status = 'running';
    this.queue = body.queue;
    for (const event of load.buffer) this.handleEvent(event);
    this.changed();
  }

  async loadAgents(): Promise<void> {
    const body = await json<AgentsAnswer>('/api/agents');
    this.agents = body.agents;
    this.agent ||= body.defaultAgent;
    this.changed();
  }

  /** Instance-wide state: the goal and the orchestration phase. */
  async loadWorkState(): Promise<void> {
    const body = await json<StatusAnswer>('/api/status');
    this.goal = body.goal;
    this.orc = body.orc;
    this.changed();
  }

  async refresh(): Promise<void> {
    if (this.currentSessionId === undefined) {
      // First load: the session list names the current session.
      await this.loadSessions();
      await this.loadConversation();
      return;
    }
    await Promise.all([this.loadSessions(), this.loadConversation(), this.loadWorkState()]);
  }

  async start(): Promise<void> {
    try {
      await Promise.all([this.loadAgents(), this.refresh(), this.loadWorkState()]);
      this.ready = true;
      document.body.dataset.ready = 'true';
      this.changed();
    } catch (error) {
      if (this.loading?.sessionId === undefined) this.loading = undefined;
      this.addNote(`Could not load: ${(error as Error).message}`);
    }
  }

  // ---- live events -------------------------------------------------------

  handleEvent = (event: ChannelEvent): void => {
    this.apply(event);
    this.changed();
  };

  private apply(event: ChannelEvent): void {
    if (event.topic === 'system' && event.event === 'replay_gap') {
      // Some events were lost: the saved state is the truth.
      void this.refresh();
      return;
    }
    // Instance-wide events: shown whatever session is on screen.
    switch (event.event) {
      case 'goal_update':
        this.goal = (event.goal as GoalView | null) ?? null;
        return;
      case 'goal_done':
        this.addNote('Goal done.', 'goal');
        return;
      case 'goal_done_rejected':
        this.addNote(`Goal not done: ${String(event.reason)}`, 'goal');
        return;
      case 'goal_pause_detected':
        this.addNote(`The agent asked to pause the goal: ${String(event.reason)}`, 'goal');
        return;
      case 'goal_pause_gate_pending':
        this.addNote(`Automatic goal turns stopped (pause confirmed): ${String(event.reason)}`, 'goal');
        return;
      case 'orc_state':
        this.orc = event as unknown as OrcState;
        return;
      case 'session_switched':
        this.currentSessionId = String(event.sessionId);
        void this.refresh();
        return;
      default:
        break;
    }
    if (this.loading && this.loading.sessionId === undefined && event.sessionId) {
      this.loading.buffer.push(event);
      return;
    }
    if (event.sessionId !== this.currentSessionId) {
      if (event.event === 'message') void this.loadSessions();
      return;
    }
    if (this.loading && this.loading.sessionId === event.sessionId) {
      // The history is on its way; this event is applied over it (see loadConversation).
      this.loading.buffer.push(event);
      return;
    }
    const traceId = String(event.traceId);
    switch (event.event) {
      case 'message': {
        // `id` is the saved message's id (the resume cursor is the frame's own id line).
        // The event has no `createdAt`: it is saved now (the history has the stored time).
        const message = { createdAt: new Date().toISOString(), ...event, id: String(event.id) } as unknown as ChatMessage;
        if (this.shown.has(message.id)) break;
        // A long message's content is left out of replayed copies: read it from the saved history.
        if (Array.isArray(event.omitted) && event.omitted.includes('content')) {
          void this.loadConversation();
          break;
        }
        this.addMessage(message);
        // Titles and message counts change with every saved message.
        void this.loadSessions();
        break;
      }
      case 'agent_thinking': {
        const run = this.liveRun(traceId);
        if (run) run.thinking += String(event.content);
        break;
      }
      case 'agent_output': {
        const run = this.liveRun(traceId);
        if (run) run.text += String(event.content);
        break;
      }
      case 'agent_tool': {
        const run = this.liveRun(traceId);
        if (run) run.tools = [...run.tools, { name: String(event.name), input: event.input }];
        break;
      }
      case 'agent_done': {
        const run = this.liveRun(traceId);
        if (run) Object.assign(run, { status: String(event.status), reason: event.reason as string | undefined });
        break;
      }
      case 'queue_update':
        this.queue = {
          pending: Number(event.pending),
          active: Boolean(event.active),
          activeTraceId: event.activeTraceId as string | undefined,
        };
        break;
      case 'steer_started':
        this.addNote(`Steered: ${String(event.prompt)}`, 'steer');
        break;
      default:
    }
  }

  setConnection = (state: ConnectionState): void => {
    this.connection = state;
    this.changed();
  };

  setNotice = (shown: boolean): void => {
    this.notice = shown;
    this.changed();
  };

  showTokenHelp = (): void => {
    if (this.tokenHelpShown) return;
    this.tokenHelpShown = true;
    this.addNote(
      document.body.dataset.hasToken === 'true'
        ? 'The server refused the access token this page has. Open the page again with the right one: /#token=<SVC_CHAT_TOKEN>.'
        : 'This server needs its access token. Open the page as /#token=<SVC_CHAT_TOKEN>.',
    );
  };

  // ---- actions -----------------------------------------------------------

  async switchSession(sessionId: string): Promise<void> {
    try {
      await json(`/api/sessions/${encodeURIComponent(sessionId)}/switch`, { method: 'POST', body: {} });
      this.currentSessionId = sessionId;
      await this.refresh();
    } catch (error) {
      this.addNote(`Could not switch: ${(error as Error).message}`);
    }
  }

  /** A new session, unless the current one or another is still untouched (no messages): then that one. */
  async newSession(): Promise<void> {
    const empty =
      this.currentSession?.messageCount === 0
        ? this.currentSession
        : this.sessions.find((session) => session.messageCount === 0 && !session.title);
    if (empty) {
      if (empty.id !== this.currentSessionId) await this.switchSession(empty.id);
      return;
    }
    try {
      await json('/api/sessions', { method: 'POST', body: { switch: true } });
      this.currentSessionId = undefined;
      this.loading = { sessionId: undefined, buffer: [] };
      await this.refresh();
      await this.loadWorkState();
    } catch (error) {
      this.addNote(`Could not create a session: ${(error as Error).message}`);
    }
  }

  /** Runs a slash command; its text lines are shown as a note (a /steer run shows up through events). */
  async runCommand(text: string): Promise<void> {
    const steer = /^\/steer\b/.test(text);
    const response = await request('/api/command', { body: { text, sessionId: this.currentSessionId, agent: this.agent || undefined } });
    if (!response.ok) {
      this.addNote(await errorOf(response));
      return;
    }
    // A /steer run's output arrives over /api/events: its headers say it was accepted; free the connection.
    if (steer) {
      await response.body?.cancel();
      return;
    }
    for await (const line of ndjsonLines(response)) {
      if (line.type === 'text') this.addNote(line.content, 'command', true);
      else if (line.type === 'done' && line.status !== 'ok')
        this.addNote(`${text}: ${line.status}${line.reason ? ` — ${line.reason}` : ''}`);
    }
  }

  /**
   * Sends a prompt. Only the response's headers are read (they name the queued
   * run); then the response is closed, which the server takes as this client
   * leaving: the run goes on and its output arrives over /api/events (for every
   * tab). A response held open per waiting message would use up the browser's
   * six connections per server, and Cancel could not get through.
   */
  async sendMessage(prompt: string): Promise<void> {
    const response = await request('/api/message', { body: { prompt, sessionId: this.currentSessionId, agent: this.agent || undefined } });
    if (!response.ok) {
      this.addNote(`Not sent: ${await errorOf(response)}`);
      return;
    }
    document.body.dataset.lastTraceId = response.headers.get('x-chat-trace-id') ?? '';
    await response.body?.cancel();
  }

  submit(text: string): void {
    const action = text.startsWith('/') ? this.runCommand(text) : this.sendMessage(text);
    action.catch((error: unknown) => this.addNote(`Failed: ${(error as Error).message}`));
  }

  async renameSession(sessionId: string, title: string): Promise<void> {
    try {
      await json(`/api/sessions/${encodeURIComponent(sessionId)}`, { method: 'PATCH', body: { title } });
      await this.loadSessions();
    } catch (error) {
      this.addNote(`Could not rename: ${(error as Error).message}`);
    }
  }

  /** Deletes a session (the server refuses one with a running or waiting answer); the current one is replaced by the server. */
  async deleteSession(sessionId: string): Promise<void> {
    const response = await request(`/api/sessions/${encodeURIComponent(sessionId)}`, { method: 'DELETE' });
    if (!response.ok) {
      this.addNote(`Could not delete: ${await errorOf(response)}`);
      return;
    }
    this.sessions = this.sessions.filter((session) => session.id !== sessionId);
    this.changed();
    await this.loadSessions();
  }

  /** Takes a waiting message out of the queue (it ends `cancelled` without running). */
  async withdraw(message: ChatMessage): Promise<void> {
    const response = await request(
      `/api/sessions/${encodeURIComponent(message.sessionId)}/queue/${encodeURIComponent(String(message.traceId))}`,
      { method: 'DELETE' },
    );
    if (!response.ok) this.addNote(`Could not remove it: ${await errorOf(response)}`);
  }

  /** A waiting message run now: taken out of the queue, then sent again as a /steer (which stops the running answer). */
  async steerNow(message: ChatMessage): Promise<void> {
    const response = await request(
      `/api/sessions/${encodeURIComponent(message.sessionId)}/queue/${encodeURIComponent(String(message.traceId))}`,
      { method: 'DELETE' },
    );
    if (!response.ok) {
      this.addNote(`Could not steer with it: ${await errorOf(response)}`);
      return;
    }
    await this.runCommand(`/steer ${message.content}`);
  }

  setAgent(agent: string): void {
    this.agent = agent;
    this.changed();
  }
}

export const model = new ChatModel();

/** Re-renders the component on every change of the model. */
export function useChat(): ChatModel {
  useSyncExternalStore(model.subscribe, () => model.version);
  return model;
}
