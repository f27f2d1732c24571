import { useEffect, useRef } from 'react';
import { NO_HISTORY_FILTERS, useUi, type HistoryListing } from '../../store/ui';

// History's state in its URL, so a link (or a reload, or the back button)
// reopens the same listing and image: /history?q=kite&provider=api&asset=<file>.
// Filters replace the current entry as they change; opening or closing an
// image adds one, so Back closes it.

const TEXT_FIELDS = ['q', 'provider', 'model', 'kind', 'since', 'until'] as const;

/** The query string of a listing and its open asset (empty fields left out). */
export function historySearch(listing: HistoryListing, asset: string | undefined): string {
  const params = new URLSearchParams();
  for (const field of TEXT_FIELDS) if (listing[field]) params.set(field, listing[field]);
  if (listing.grouped) params.set('grouped', '1');
  // A session by title; an empty title is the images without a session.
  if (listing.session !== undefined) params.set('session', listing.session ?? '');
  if (listing.sessionId) params.set('sessionId', listing.sessionId);
  if (asset) params.set('asset', asset);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The listing and open asset a query string names (what it leaves out is unfiltered). */
export function historyFromSearch(search: string): { listing: HistoryListing; asset: string | undefined } {
  const params = new URLSearchParams(search);
  const listing: HistoryListing = { ...NO_HISTORY_FILTERS, grouped: params.get('grouped') === '1' };
  for (const field of TEXT_FIELDS) {
    const value = params.get(field);
    if (value) Object.assign(listing, { [field]: value });
  }
  if (params.has('session')) listing.session = params.get('session') || null;
  if (params.get('sessionId')) listing.sessionId = params.get('sessionId') ?? undefined;
  return { listing, asset: params.get('asset') || undefined };
}

const onHistory = () => window.location.pathname === '/history';

function readUrl(): void {
  const { listing, asset } = historyFromSearch(window.location.search);
  useUi.setState({ history: listing, selectedAsset: asset });
}

/** Keeps History's filters and open asset and the URL in step while History shows. */
export function useHistoryUrl(): void {
  const listing = useUi((state) => state.history);
  const asset = useUi((state) => state.selectedAsset);
  // Set while the state read from the URL has not rendered yet: the URL is not written back from the old state.
  const adopting = useRef(window.location.search !== '');

  // Arriving with a query (a link, a reload): the URL wins. Arriving without one (the nav link,
  // an image's Details): the state wins, and is written to the URL below.
  useEffect(() => {
    if (window.location.search) readUrl();
    const onPop = () => {
      if (onHistory()) readUrl();
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  useEffect(() => {
    if (adopting.current) {
      adopting.current = false;
      return;
    }
    if (!onHistory()) return;
    const search = historySearch(listing, asset);
    if (search === window.location.search) return;
    const url = `${window.location.pathname}${search}${window.location.hash}`;
    // Opening or closing an image is a step Back undoes; a changed filter is not, nor the first
    // write on arriving (the entry the link made).
    const assetChanged = new URLSearchParams(window.location.search).get('asset') !== (asset ?? null);
    if (assetChanged && window.location.search !== '') window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
  }, [listing, asset]);
}
