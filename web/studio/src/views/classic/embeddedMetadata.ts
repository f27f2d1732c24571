// The generation metadata a studio image carries (PNG iTXt chunk
// `svc:metadata`, schema `svc.asset-metadata/1`, written by the server's
// media/metadata.ts), read in the browser from a dropped file so Classic can
// offer "use its settings".

const KEYWORD = 'svc:metadata';
const SCHEMA = 'svc.asset-metadata/1';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** How an image was made, as its file says. */
export interface EmbeddedSettings {
  prompt: string;
  lane: string;
  model: string;
  settings: Record<string, unknown>;
}

/** The text of the PNG's uncompressed iTXt chunk with this keyword (ours is never compressed). */
function pngText(bytes: Uint8Array, keyword: string): string | undefined {
  if (!PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const latin1 = new TextDecoder('latin1');
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = view.getUint32(offset);
    const type = latin1.decode(bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IEND') return undefined;
    if (type === 'iTXt') {
      const keywordEnd = data.indexOf(0);
      if (keywordEnd > 0 && latin1.decode(data.subarray(0, keywordEnd)) === keyword && data[keywordEnd + 1] === 0) {
        const languageEnd = data.indexOf(0, keywordEnd + 3);
        const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1);
        if (translatedEnd < 0) return undefined;
        return new TextDecoder('utf-8').decode(data.subarray(translatedEnd + 1));
      }
    }
    offset += 12 + length;
  }
  return undefined;
}

/** The settings a studio PNG was made with, or undefined for any other file. */
export async function readEmbeddedSettings(file: Blob): Promise<EmbeddedSettings | undefined> {
  try {
    const text = pngText(new Uint8Array(await file.arrayBuffer()), KEYWORD);
    if (!text) return undefined;
    const payload = JSON.parse(text) as Partial<EmbeddedSettings> & { schema?: unknown };
    if (
      payload.schema !== SCHEMA ||
      typeof payload.prompt !== 'string' ||
      typeof payload.lane !== 'string' ||
      typeof payload.model !== 'string'
    )
      return undefined;
    const settings = typeof payload.settings === 'object' && payload.settings !== null ? payload.settings : {};
    return { prompt: payload.prompt, lane: payload.lane, model: payload.model, settings };
  } catch {
    return undefined;
  }
}
