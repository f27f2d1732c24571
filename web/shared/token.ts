// The access token of the server a page belongs to, when it has one. It comes
// in the page's URL as `#token=…` (a fragment never reaches the server or its
// logs) or `?token=…`, is kept for this tab in sessionStorage under the app's
// own key, and is taken out of the address bar. Shared by the studio, the chat
// page and the manager dashboard.

export function takeToken(storageKey: string): string | undefined {
  const url = new URL(window.location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const fromUrl = fragment.get('token') || url.searchParams.get('token');
  if (fromUrl) {
    fragment.delete('token');
    url.searchParams.delete('token');
    url.hash = fragment.toString();
    window.history.replaceState(window.history.state, '', url);
    try {
      window.sessionStorage.setItem(storageKey, fromUrl);
    } catch {
      // Storage disabled: the token lasts as long as this page.
    }
    return fromUrl;
  }
  try {
    return window.sessionStorage.getItem(storageKey) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * A same-origin URL that the browser fetches by itself (an image, a download,
 * the event stream), with the token as `?token=` since no header can be set
 * (the servers' request logs mask a `token` parameter).
 */
export function withToken(path: string, token: string | undefined): string {
  if (!token) return path;
  const url = new URL(path, window.location.origin);
  url.searchParams.set('token', token);
  return `${url.pathname}${url.search}`;
}
