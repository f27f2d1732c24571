import type { AssetRecord } from '../../api/contract';
import type { ComposerReference } from '../../store/ui';

// Reference images from files (drop, paste, picker) and from history.

export const REFERENCE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
const FALLBACK_MAX_BYTES = 20 * 1024 * 1024;

let ids = 0;
const nextId = () => `ref-${++ids}`;

const readDataUrl = (file: File): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });

/** What the first bytes say the file is (its name and declared type may lie: a text file named .png). */
export async function sniffImageType(file: Blob): Promise<string | undefined> {
  const head = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  const starts = (bytes: number[], at = 0) => bytes.every((byte, index) => head[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

/** Reads image files into references; files the studio would refuse (by their bytes, not their name) are named in `refused`. */
export async function referencesFromFiles(
  files: Iterable<File>,
  maxBytes = FALLBACK_MAX_BYTES,
): Promise<{ added: ComposerReference[]; refused: string[] }> {
  const added: ComposerReference[] = [];
  const refused: string[] = [];
  for (const file of files) {
    const name = file.name || 'pasted image';
    const sniffed = await sniffImageType(file).catch(() => undefined);
    if (!sniffed || !REFERENCE_TYPES.includes(sniffed)) refused.push(`${name}: not PNG, JPEG or WebP (read from its bytes, not its name)`);
    else if (file.size > maxBytes) refused.push(`${name}: over ${Math.round(maxBytes / 1024 / 1024)} MiB`);
    else {
      try {
        added.push({ id: nextId(), source: 'file', name, dataUrl: await readDataUrl(file), bytes: file.size });
      } catch {
        refused.push(`${name}: could not be read`);
      }
    }
  }
  return { added, refused };
}

export const referenceFromAsset = (asset: AssetRecord): ComposerReference => ({
  id: nextId(),
  source: 'history',
  name: asset.prompt,
  filename: asset.filename,
  thumbnailUrl: asset.thumbnailUrl,
});
