import type { MouseEvent } from 'react';
import { useUi } from './store/ui';

// The app's views are paths (`/`, `/node`, `/agent`, `/video`, `/history`, `/settings`); the server answers
// index.html for each, and these helpers move between them without a reload.

export type View = 'classic' | 'node' | 'agent' | 'video' | 'history' | 'settings';

export const VIEW_PATHS: Readonly<Record<View, string>> = {
  classic: '/',
  node: '/node',
  agent: '/agent',
  video: '/video',
  history: '/history',
  settings: '/settings',
};

export function viewOf(path: string): View {
  if (path.startsWith('/node')) return 'node';
  if (path.startsWith('/agent')) return 'agent';
  if (path.startsWith('/video')) return 'video';
  if (path.startsWith('/history')) return 'history';
  if (path.startsWith('/settings')) return 'settings';
  return 'classic';
}

/** Whether the app has a page at this path: a view's path or one below it (the view reads the rest); else the not-found view. */
export function isAppPath(path: string): boolean {
  return (
    path === '/' ||
    (Object.values(VIEW_PATHS) as string[]).some((prefix) => prefix !== '/' && (path === prefix || path.startsWith(`${prefix}/`)))
  );
}

/** Goes to a path of the app (with an optional `#hash`), keeping the browser's back button working. */
export function navigate(to: string): void {
  const url = new URL(to, window.location.origin);
  if (url.pathname + url.hash !== window.location.pathname + window.location.hash) window.history.pushState(null, '', url);
  useUi.getState().setLocation(url.pathname, url.hash);
  window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => useUi.getState().setLocation(window.location.pathname, window.location.hash));

/** onClick of an in-app link: a plain click navigates here, modified clicks keep the browser's meaning (new tab…). */
export function followLink(event: MouseEvent<HTMLAnchorElement>): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(event.currentTarget.getAttribute('href') ?? '/');
}
