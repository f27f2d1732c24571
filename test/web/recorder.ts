// An init script for the page: records every change of every job card (its
// phase, status, first slot's state and image frame height) as the DOM
// changes, so a test can check what was shown live and in which order.

export interface JobSnapshot {
  id: string;
  phase: string;
  status: string;
  slot: string;
  frameHeight: number;
}

export const JOB_RECORDER = `
(() => {
  window.__jobLog = [];
  window.__jobsBeforeReconcile = 0;
  const last = new Map();
  const record = () => {
    const list = document.querySelector('.jobs');
    for (const job of document.querySelectorAll('.job')) {
      if (list && list.dataset.reconciled !== 'true') window.__jobsBeforeReconcile += 1;
      const slot = job.querySelector('.slot');
      const frame = job.querySelector('.image-frame');
      const entry = {
        id: job.dataset.requestId,
        phase: job.dataset.phase,
        status: job.dataset.status,
        slot: slot ? slot.dataset.state : '',
        frameHeight: frame ? Math.round(frame.getBoundingClientRect().height) : 0,
      };
      const key = JSON.stringify(entry);
      if (last.get(entry.id) !== key) {
        last.set(entry.id, key);
        window.__jobLog.push(entry);
      }
    }
  };
  new MutationObserver(record).observe(document, { subtree: true, childList: true, attributes: true });
})();
`;
