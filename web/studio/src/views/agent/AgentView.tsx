import { useQueryClient } from '@tanstack/react-query';
import type { AgentSessionBody } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { ErrorNotice } from '../../components/ErrorNotice';
import { errorHelp } from '../../components/errorHelp';
import { useUi } from '../../store/ui';
import { configuredBackend, usePromptBuilderConfig } from '../prompt-builder/promptBuilder';
import { AgentComposer } from './AgentComposer';
import { AgentQueuePanel } from './AgentQueuePanel';
import { agentKeys, enqueueTurn, mergeTurn, updateAgentSession, useAgentSession, useAgentSessions } from './agentApi';
import { Conversation, decidedByText } from './Conversation';
import { SessionRail } from './SessionRail';
import { SessionSettings } from './SessionSettings';
import { Stage } from './Stage';
import { useAgentLive } from './useAgentLive';
import './agent.css';

/** The session in the URL's fragment (`/agent#<id>`, as Node's), so a reload opens the same one. */
const sessionIdOf = (hash: string): string | undefined => (hash.length > 1 ? decodeURIComponent(hash.slice(1)) : undefined);

/** Who plans turns: the last turn a planner (or the rules) decided, else what the settings route to now (a slash command decides by itself). */
function PlannerBadge({ session }: { session: AgentSessionBody }) {
  const config = usePromptBuilderConfig();
  const planned = [...session.turns].reverse().find((turn) => turn.plan && turn.plan.decidedBy !== 'command');
  const routed = configuredBackend(config.data);
  const text = planned
    ? decidedByText(planned)
    : routed
      ? `planner ${routed.backend}${routed.model ? ` · ${routed.model}` : ''}${routed.ready ? '' : ' (not ready: rules decide)'}`
      : '…';
  return (
    <span
      className="planner-badge"
      data-decided-by={planned?.plan?.decidedBy ?? ''}
      data-backend={planned?.plan?.backend ?? routed?.backend ?? ''}
      title="The backend that plans this session's turns"
    >
      {text}
    </span>
  );
}

function Session({ id, progress }: { id: string; progress: ReturnType<typeof useAgentLive> }) {
  const queryClient = useQueryClient();
  const session = useAgentSession(id);
  const data = session.data;
  if (session.error) return <ErrorNotice error={toErrorPayload(session.error)} />;
  if (!data) return <p className="hint">Loading the session…</p>;

  const send = async (prompt: string) => mergeTurn(queryClient, await enqueueTurn(id, prompt));
  const patch = async (body: Record<string, unknown>) => {
    try {
      await updateAgentSession(id, body);
      void queryClient.invalidateQueries({ queryKey: agentKeys.session(id) });
    } catch (error) {
      const payload = toErrorPayload(error);
      useUi.getState().showToast(`Not changed: ${errorHelp(payload).meaning} (${payload.code})`);
    }
  };

  return (
    <div className="agent-session" data-session={data.id}>
      <div className="agent-main">
        <div className="agent-head">
          <h1>{data.title}</h1>
          <PlannerBadge session={data} />
        </div>
        <SessionSettings key={`${data.styleLock ?? ''}|${data.subjectLock ?? ''}`} session={data} onSave={patch} />
        <Stage session={data} />
        <Conversation turns={data.turns} onPick={(filename) => void patch({ currentImage: { filename } })} />
        <AgentComposer onSend={send} />
      </div>
      <AgentQueuePanel turns={data.turns} progress={progress} />
    </div>
  );
}

/** Agent Mode: the sessions on the left, the open one's stage, conversation and composer, its queue on the right. */
export function AgentView() {
  const hash = useUi((state) => state.hash);
  const sessions = useAgentSessions();
  const progress = useAgentLive();
  const selected = sessionIdOf(hash) ?? sessions.data?.[0]?.id;
  return (
    <div className="agent" data-ready={sessions.isSuccess}>
      <SessionRail selected={selected} />
      {sessions.error && <ErrorNotice error={toErrorPayload(sessions.error)} />}
      {selected ? (
        <Session key={selected} id={selected} progress={progress} />
      ) : (
        sessions.isSuccess && <p className="hint agent-empty">No session yet: start one with New session.</p>
      )}
    </div>
  );
}
