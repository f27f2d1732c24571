import type { Simulator } from '../harness.js';
import { newId } from './state.js';

// Generated media at plain temporary URLs (contract §2): fetched without auth,
// gone (403) once expired. Bounded: the oldest entries go first.

interface MediaFile {
  readonly bytes: Buffer;
  readonly type: string;
  readonly expiresAt: number;
}

const MAX_KEPT = 256;

export class MediaStore {
  private readonly files = new Map<string, MediaFile>();

  constructor(
    private readonly simulator: Simulator,
    /** How long a link stays valid. */
    private readonly ttlMs: number,
  ) {}

  /** Keeps `bytes` and answers the name of its link (`/media/<name>`). */
  put(bytes: Buffer, type: string, options: { expired?: boolean; extension?: string } = {}): string {
    const name = `${newId(options.extension === 'mp4' ? 'vid' : 'img')}.${options.extension ?? 'jpg'}`;
    this.files.set(name, { bytes, type, expiresAt: options.expired ? Date.now() - 1 : Date.now() + this.ttlMs });
    if (this.files.size > MAX_KEPT) this.files.delete(this.files.keys().next().value as string);
    return name;
  }

  url(name: string): string {
    return `${this.simulator.url}/media/${name}`;
  }

  /** The file, `expired`, or undefined when unknown. */
  get(name: string): MediaFile | 'expired' | undefined {
    const file = this.files.get(name);
    if (!file) return undefined;
    if (file.expiresAt <= Date.now()) {
      this.files.delete(name);
      return 'expired';
    }
    return file;
  }

  /** The bytes behind one of our own links (an edit may send one back as its source). */
  bytesOf(url: string): Buffer | undefined {
    const prefix = `${this.simulator.url}/media/`;
    if (!url.startsWith(prefix)) return undefined;
    const file = this.get(url.slice(prefix.length));
    return file && file !== 'expired' ? file.bytes : undefined;
  }
}
