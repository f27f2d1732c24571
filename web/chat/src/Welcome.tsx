import { useChat } from './model';

/** The empty session: what the agents are and how to start. */
export function Welcome() {
  const chat = useChat();
  const installed = chat.agents.filter((agent) => agent.available);
  return (
    <div className="welcome">
      <h2>Start a conversation</h2>
      <p>
        Each message runs a coding agent program on this machine (
        {installed.length > 0 ? installed.map((agent) => agent.label).join(', ') : 'none installed yet'}) and shows its thinking, tool calls
        and answer as they come. Messages sent while one runs wait in the queue.
      </p>
      <ul>
        <li>
          Type a message and press <kbd>Enter</kbd> (<kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line).
        </li>
        <li>
          <code>/goal set &lt;objective&gt;</code> keeps the agent working on one objective over automatic turns.
        </li>
        <li>
          <code>/orc start &lt;task&gt;</code> runs it through the PABCD phases (plan, audit, build, check, done).
        </li>
        <li>
          <code>/help</code> lists every command; <kbd>?</kbd> lists the shortcuts.
        </li>
      </ul>
    </div>
  );
}
