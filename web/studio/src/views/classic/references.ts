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

/** Reads image files into references; files the studio would refuse are named in `refused`. */
export async function referencesFromFiles(files: Iterable<File>, maxBytes = FALLBACK_MAX_BYTES): Promise<{ added: ComposerReference[]; refused: string[] }> {
  const added: ComposerReference[] = [];
  const refused: string[] = [];
  for (const file of files) {
    const name = file.name || 'pasted image';
    if (!REFERENCE_TYPES.includes(file.type)) refused.push(`${name}: not PNG, JPEG or WebP`);
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
