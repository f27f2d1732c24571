import { z } from 'zod';
import { readJsonFile, writeJsonFile } from '../common/json-file.js';
import { REASONING_EFFORTS } from './api/index.js';

// config.json: the user's persisted settings. Written atomically with mode 0600
// because it can hold keys.

const laneDefaults = z
  .object({ model: z.string().optional(), reasoning: z.enum(REASONING_EFFORTS).optional(), plannerModel: z.string().optional() })
  .strict();

export const settingsSchema = z
  .object({
    /** `defaults.<lane>`: the lane's persisted model and reasoning; `defaults.video`: the video target. */
    defaults: z
      .object({ video: z.object({ lane: z.string(), model: z.string() }).strict().optional() })
      .catchall(laneDefaults)
      .optional(),
    keys: z.record(z.string(), z.string()).optional(),
    betaAuthMode: z.enum(['apikey', 'cloud']).optional(),
    upstreams: z.record(z.string(), z.string()).optional(),
    oauthAuthFile: z.string().optional(),
    allowedOrigins: z.array(z.string()).optional(),
    historyRetentionDays: z.number().positive().optional(),
    /** Hours a finished job stays answerable at GET /api/jobs/:requestId. */
    jobRetentionHours: z.number().positive().optional(),
  })
  .passthrough();

export type SettingsData = z.infer<typeof settingsSchema>;

export class Settings {
  private data: SettingsData;

  constructor(private readonly file: string) {
    const raw = readJsonFile<unknown>(file, {});
    const parsed = settingsSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`${file} is not a valid settings file: ${parsed.error.issues[0]?.message}`);
    this.data = parsed.data;
  }

  get(): Readonly<SettingsData> {
    return this.data;
  }

  /** Applies `change` to a copy and persists it; readers never see a half-written file. */
  update(change: (draft: SettingsData) => void): Readonly<SettingsData> {
    const draft = structuredClone(this.data);
    change(draft);
    const parsed = settingsSchema.parse(draft);
    writeJsonFile(this.file, parsed, { private: true });
    this.data = parsed;
    return this.data;
  }
}
