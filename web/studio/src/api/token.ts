// The studio's access token (SVC_TOKEN), when the server has one. It comes in
// the page's URL as `#token=…` (a fragment never reaches the server or its
// logs) or `?token=…`, is kept for this tab in sessionStorage and taken out of
// the address bar. The same as the chat page does.

const STORAGE_KEY = 'svc-studio-token';

function takeToken(): string | undefined {
  const url = new URL(window.location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const fromUrl = fragment.get('token') || url.searchParams.get('token');
  if (fromUrl) {
    fragment.delete('token');
    url.searchParams.delete('token');
    url.hash = fragment.toString();
    window.history.replaceState(window.history.state, '', url);
    try {
      window.sessionStorage.setItem(STORAGE_KEY, fromUrl);
    } catch {
      // Storage disabled: the token lasts as long as this page.
    }
    return fromUrl;
  }
  try {
    return window.sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export const accessToken: string | undefined = takeToken();

/**
 * A same-origin URL that the browser fetches by itself (an image, a download,
 * the event stream), with the token as `?token=` since no header can be set.
 */
export function withToken(path: string): string {
  if (!accessToken) return path;
  const url = new URL(path, window.location.origin);
  url.searchParams.set('token', accessToken);
  return `${url.pathname}${url.search}`;
}
