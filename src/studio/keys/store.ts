import { join } from 'node:path';
import type { KeyNamespace } from '../auth/key-namespaces.js';
import type { StudioPaths } from '../paths.js';
import { Settings, type SettingsData } from '../settings.js';

// Where saved keys live: `keys` (and `betaAuthMode`) of config.json, written
// atomically with mode 0600 by Settings. A demo studio saves into a file of
// its own, `$SVC_HOME/demo/config.json`: a key tried in the demo never
// replaces a real one in the user's config.json.

export type BetaAuthMode = NonNullable<SettingsData['betaAuthMode']>;

export class KeyStore {
  constructor(
    private readonly settings: Settings,
    /** The file keys are saved in (reported, never the keys). */
    readonly file: string,
  ) {}

  /** The store of a studio: config.json's settings, or the demo's own file. */
  static of(paths: StudioPaths, settings: Settings, demo: boolean): KeyStore {
    if (!demo) return new KeyStore(settings, paths.configFile);
    const file = join(paths.home, 'demo', 'config.json');
    return new KeyStore(new Settings(file), file);
  }

  get(namespace: KeyNamespace): string | undefined {
    return this.settings.get().keys?.[namespace]?.trim() || undefined;
  }

  betaAuthMode(): BetaAuthMode | undefined {
    return this.settings.get().betaAuthMode;
  }

  /** Saves a key, and the beta-api mode it selects when it is one of beta's two ("the last saved mode wins"). */
  save(namespace: KeyNamespace, value: string): void {
    this.settings.update((draft) => {
      draft.keys = { ...draft.keys, [namespace]: value };
      if (namespace === 'beta') draft.betaAuthMode = 'apikey';
      if (namespace === 'cloud') draft.betaAuthMode = 'cloud';
    });
  }

  /** Removes a saved key (and the beta-api mode it had selected); false when none was saved. */
  remove(namespace: KeyNamespace): boolean {
    if (this.settings.get().keys?.[namespace] === undefined) return false;
    this.settings.update((draft) => {
      const keys = { ...draft.keys };
      delete keys[namespace];
      draft.keys = keys;
      if ((namespace === 'beta' && draft.betaAuthMode === 'apikey') || (namespace === 'cloud' && draft.betaAuthMode === 'cloud'))
        delete draft.betaAuthMode;
    });
    return true;
  }
}
