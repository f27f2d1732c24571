import { useEffect } from 'react';
import { useUi } from '../store/ui';

const TOAST_MS = 10_000;

/** One message at a time, with an optional action (Undo); it stays long enough to use it. */
export function ToastArea() {
  const toast = useUi((state) => state.toast);
  const dismiss = useUi((state) => state.dismissToast);
  useEffect(() => {
    if (!toast) return;
    const timer = setTimeout(() => dismiss(toast.id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toast, dismiss]);
  return (
    <div className="toast-area" aria-live="polite">
      {toast && (
        <div className="toast" role="status">
          <span>{toast.message}</span>
          {toast.action && (
            <button
              type="button"
              onClick={() => {
                toast.action?.run();
                dismiss(toast.id);
              }}
            >
              {toast.action.label}
            </button>
          )}
          <button type="button" className="ghost" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}
