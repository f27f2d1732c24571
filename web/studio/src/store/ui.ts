import { create } from 'zustand';
import type { AssetRecord, HistoryKind, ImageFormat, LaneId, Moderation, ProviderId, Quality, ReasoningEffort } from '../api/contract';

// UI state only (what the person is doing on this page); what the server
// knows lives in the query cache.

/** A reference image in the composer: a file from this computer, or an image of history. */
export type ComposerReference =
  | { id: string; source: 'file'; name: string; dataUrl: string; bytes: number }
  | { id: string; source: 'history'; name: string; filename: string; thumbnailUrl: string };

/** The shared controls a lane may take (only those of the chosen lane are shown and sent). */
export interface ComposerControls {
  quality?: Quality;
  size?: string;
  format?: ImageFormat;
  moderation?: Moderation;
  reasoning?: ReasoningEffort;
  negativePrompt?: string;
}

export interface Composer {
  prompt: string;
  provider: ProviderId;
  /** '' = the lane's default model. */
  model: string;
  controls: ComposerControls;
  /** The lane's own options (its JSON Schema in capabilities). */
  options: Record<string, unknown>;
  references: ComposerReference[];
  /** Set: the next run edits this image of history. */
  editImage?: AssetRecord;
  /** Outputs: more than one runs a multimode batch. */
  count: number;
}

export const EMPTY_COMPOSER: Composer = { prompt: '', provider: 'auto', model: '', controls: {}, options: {}, references: [], count: 1 };

export type ConnectionState = 'connecting' | 'open' | 'reconnecting';

/** What History lists: narrowed by words of the prompt, lane, model, kind and dates, or session groups (the server groups only the full listing). */
export interface HistoryListing {
  q: string;
  provider: LaneId | '';
  /** A model id as assets record it; '' = every model. */
  model: string;
  kind: HistoryKind | '';
  /** Days (`yyyy-mm-dd`, this computer's calendar) the images were made from and to, both included; '' = open. */
  since: string;
  until: string;
  grouped: boolean;
  /** One session's images by title (null: those without a session); undefined: all. */
  session?: string | null;
  /** One graph session's images (its title in `session`, for the label). */
  sessionId?: string;
}

/** The listing with no filter set (grouping is kept as it is). */
export const NO_HISTORY_FILTERS = {
  q: '',
  provider: '',
  model: '',
  kind: '',
  since: '',
  until: '',
  session: undefined,
  sessionId: undefined,
} as const satisfies Omit<HistoryListing, 'grouped'>;

export interface Toast {
  id: number;
  message: string;
  action?: { label: string; run: () => void };
}

interface UiState {
  /** The view's path (`/`, `/history`, `/settings`) and its hash. */
  path: string;
  hash: string;
  composer: Composer;
  /** An asset waiting for the person to confirm that its settings replace the composer's. */
  pendingRemix?: AssetRecord;
  toast?: Toast;
  connection: ConnectionState;
  /** The event stream has been broken for longer than the notice threshold. */
  disconnectNotice: boolean;
  /** The server asked for its access token. */
  tokenRequired: boolean;
  /** Running jobs were read from the server (no job spinner before that). */
  reconciled: boolean;
  /** History: the asset whose detail panel is open. */
  selectedAsset?: string;
  history: HistoryListing;

  setLocation(path: string, hash: string): void;
  updateComposer(change: Partial<Composer>): void;
  setControl<K extends keyof ComposerControls>(key: K, value: ComposerControls[K] | undefined): void;
  addReferences(references: ComposerReference[]): void;
  removeReference(id: string): void;
  /** Remix: replaces the composer at once when it is empty, else asks first. */
  requestRemix(asset: AssetRecord): 'applied' | 'asked';
  confirmRemix(): void;
  cancelRemix(): void;
  showToast(message: string, action?: Toast['action']): void;
  dismissToast(id: number): void;
  setConnection(state: ConnectionState): void;
  setDisconnectNotice(shown: boolean): void;
  setTokenRequired(): void;
  setReconciled(): void;
  selectAsset(filename: string | undefined): void;
  setHistory(change: Partial<HistoryListing>): void;
}

const hasContent = (composer: Composer): boolean =>
  composer.prompt.trim() !== '' || composer.references.length > 0 || composer.editImage !== undefined;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  (values as readonly unknown[]).includes(value) ? (value as T) : undefined;

/** The composer an asset was made with: its prompt, lane, model and the settings it recorded. */
export const composerFromAsset = (asset: AssetRecord): Composer => composerFromMade(asset);

/** The composer of anything that says how it was made (an asset, a studio image's embedded metadata). */
export function composerFromMade(made: { prompt: string; provider: string; model: string; settings: Record<string, unknown> }): Composer {
  const settings = made.settings;
  return {
    ...EMPTY_COMPOSER,
    prompt: made.prompt,
    provider: made.provider as ProviderId,
    model: made.model,
    controls: {
      quality: oneOf(['low', 'medium', 'high'] as const, settings.quality),
      size: text(settings.size) && settings.size !== 'auto' ? (settings.size as string) : undefined,
      format: oneOf(['png', 'jpeg', 'webp'] as const, settings.format),
      moderation: oneOf(['auto', 'low'] as const, settings.moderation),
      reasoning: oneOf(['none', 'low', 'medium', 'high', 'xhigh'] as const, settings.reasoning),
      negativePrompt: text(settings.negativePrompt),
    },
    options: optionsFromSettings(settings),
  };
}

/** Settings every lane records that are not lane options (the shared controls, the model that ran). */
const SHARED_SETTINGS = new Set([
  'model',
  'size',
  'quality',
  'format',
  'moderation',
  'reasoning',
  'negativePrompt',
  'options',
  'n',
  'count',
]);

/**
 * A lane's options as an asset recorded them: its `options`, and the values a lane records at the top level of
 * its settings (epsilon's sampler, steps, seed...). The composer sends only those the chosen lane's schema has.
 */
function optionsFromSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const nested = typeof settings.options === 'object' && settings.options !== null ? (settings.options as Record<string, unknown>) : {};
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries({ ...settings, ...nested })) {
    if (!SHARED_SETTINGS.has(name) && value !== null && value !== undefined && typeof value !== 'object') options[name] = value;
  }
  return options;
}

let toastIds = 0;

export const useUi = create<UiState>((set, get) => ({
  path: window.location.pathname,
  hash: window.location.hash,
  composer: EMPTY_COMPOSER,
  connection: 'connecting',
  disconnectNotice: false,
  tokenRequired: false,
  reconciled: false,
  history: { ...NO_HISTORY_FILTERS, grouped: false },

  setLocation: (path, hash) => set({ path, hash }),
  updateComposer: (change) => set((state) => ({ composer: { ...state.composer, ...change } })),
  setControl: (key, value) =>
    set((state) => {
      const controls = { ...state.composer.controls };
      if (value === undefined || value === '') delete controls[key];
      else controls[key] = value;
      return { composer: { ...state.composer, controls } };
    }),
  addReferences: (references) =>
    set((state) => ({ composer: { ...state.composer, references: [...state.composer.references, ...references] } })),
  removeReference: (id) =>
    set((state) => ({ composer: { ...state.composer, references: state.composer.references.filter((reference) => reference.id !== id) } })),
  requestRemix: (asset) => {
    if (hasContent(get().composer)) {
      set({ pendingRemix: asset });
      return 'asked';
    }
    set({ composer: composerFromAsset(asset) });
    return 'applied';
  },
  confirmRemix: () => {
    const asset = get().pendingRemix;
    if (asset) set({ composer: composerFromAsset(asset), pendingRemix: undefined });
  },
  cancelRemix: () => set({ pendingRemix: undefined }),
  showToast: (message, action) => set({ toast: { id: ++toastIds, message, action } }),
  dismissToast: (id) => set((state) => (state.toast?.id === id ? { toast: undefined } : {})),
  setConnection: (connection) => set({ connection }),
  setDisconnectNotice: (disconnectNotice) => set({ disconnectNotice }),
  setTokenRequired: () => set({ tokenRequired: true }),
  setReconciled: () => set({ reconciled: true }),
  selectAsset: (selectedAsset) => set({ selectedAsset }),
  setHistory: (change) => set((state) => ({ history: { ...state.history, ...change } })),
}));
