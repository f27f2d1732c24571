// A one-line progress indicator on stderr for a person waiting at a
// terminal; elsewhere (a pipe, a log, --json) it draws nothing.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 100;

export interface Spinner {
  /** The text after the frame. */
  text(text: string): void;
  /** Clears the line and stops. */
  stop(): void;
}

export function startSpinner(initial: string, options: { enabled?: boolean } = {}): Spinner {
  const enabled = options.enabled ?? Boolean(process.stderr.isTTY);
  let text = initial;
  let frame = 0;
  if (!enabled) return { text: (next) => void (text = next), stop: () => undefined };
  const draw = () => process.stderr.write(`\r\u001b[2K${FRAMES[frame++ % FRAMES.length]} ${text}`);
  draw();
  const timer = setInterval(draw, FRAME_MS);
  return {
    text(next) {
      text = next;
    },
    stop() {
      clearInterval(timer);
      process.stderr.write('\r\u001b[2K');
    },
  };
}
