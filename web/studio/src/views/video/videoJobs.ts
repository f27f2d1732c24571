import { create } from 'zustand';

// The video jobs this tab started (in the Video view or from History), newest
// first, kept in sessionStorage so a reload shows them again: their state is
// then read from the server (GET /api/jobs/:id) and followed on the stream.

export interface VideoJobEntry {
  requestId: string;
  label: string;
  operation: string;
}

const KEY = 'svc-studio-video-jobs';
const MAX = 8;

function load(): VideoJobEntry[] {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter((entry): entry is VideoJobEntry => typeof entry?.requestId === 'string' && typeof entry?.label === 'string')
      : [];
  } catch {
    return [];
  }
}

interface VideoJobsState {
  jobs: VideoJobEntry[];
  forget(requestId: string): void;
}

export const useVideoJobs = create<VideoJobsState>((set) => ({
  jobs: load(),
  forget: (requestId) => set((state) => save(state.jobs.filter((job) => job.requestId !== requestId))),
}));

function save(jobs: VideoJobEntry[]): { jobs: VideoJobEntry[] } {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(jobs));
  } catch {
    // Storage disabled: the list lives as long as the page.
  }
  return { jobs };
}

export function rememberVideoJob(entry: VideoJobEntry): void {
  useVideoJobs.setState((state) => save([entry, ...state.jobs.filter((job) => job.requestId !== entry.requestId)].slice(0, MAX)));
}
