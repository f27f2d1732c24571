// The studio's access token (SVC_TOKEN), when the server has one. It comes in
// the page's URL as `#token=…` (a fragment never reaches the server or its
// logs) or `?token=…`, is kept for this tab in sessionStorage and taken out of
// the address bar (web/shared/token.ts, shared with the chat page and the manager).
import { takeToken, withToken as withTokenFor } from '../../../shared/token';

export const accessToken: string | undefined = takeToken('svc-studio-token');

/**
 * A same-origin URL that the browser fetches by itself (an image, a download,
 * the event stream), with the token as `?token=` since no header can be set.
 */
export const withToken = (path: string): string => withTokenFor(path, accessToken);
