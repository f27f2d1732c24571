import type { VideoAnalysis } from '../../api/contract';
import { api } from '../../api/http';
import { withToken } from '../../api/token';
import { rememberVideoJob, useVideoJobs } from './videoJobs';

// Video's routes (docs/API.md "Video"): generate, edit and extend are async
// jobs (202, then events on /api/events); frame and analyze answer at once.

/** A fresh requestId (random bytes: `crypto.randomUUID` needs a secure context). */
export function newVideoRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `web-video-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

export type VideoOperationPath = '/api/video/generate' | '/api/video/edit' | '/api/video/extend';

/** Starts a video job; its id is remembered (this tab) before the POST, so no event of it is missed and a reload finds it. */
export async function startVideoJob(path: VideoOperationPath, body: Record<string, unknown>, label: string): Promise<string> {
  const requestId = newVideoRequestId();
  rememberVideoJob({ requestId, label, operation: path.slice('/api/video/'.length) });
  try {
    await api(path, { method: 'POST', body: { ...body, requestId, async: true } });
  } catch (error) {
    // Refused: no job exists, so no card either (the form shows why).
    useVideoJobs.getState().forget(requestId);
    throw error;
  }
  return requestId;
}

export const analyzeVideo = (filename: string) => api<VideoAnalysis>('/api/video/analyze', { method: 'POST', body: { video: filename } });

/** A PNG of one frame: `first`, `last`, or a time in seconds. */
export const frameUrl = (filename: string, at: string) => withToken(`/api/video/frame?${new URLSearchParams({ filename, at }).toString()}`);
