import { useEffect, useRef } from 'react';
import { navigate } from '../router';
import { useUi } from '../store/ui';

/** Asks before an image's settings replace what the composer holds. */
export function RemixDialog() {
  const pending = useUi((state) => state.pendingRemix);
  const confirm = useUi((state) => state.confirmRemix);
  const cancel = useUi((state) => state.cancelRemix);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (pending && !element.open) element.showModal();
    if (!pending && element.open) element.close();
  }, [pending]);

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="remix-title" onClose={() => useUi.getState().pendingRemix && cancel()}>
      <h2 id="remix-title">Replace the composer?</h2>
      <p>The composer already has a prompt or images. Load this image&apos;s prompt and settings instead?</p>
      {pending && <p className="dialog-quote">{pending.prompt}</p>}
      <div className="dialog-actions">
        <button type="button" className="ghost" onClick={cancel}>
          Keep mine
        </button>
        <button
          type="button"
          className="primary"
          autoFocus
          onClick={() => {
            confirm();
            navigate('/');
          }}
        >
          Replace
        </button>
      </div>
    </dialog>
  );
}
