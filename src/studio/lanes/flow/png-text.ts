import { inflateSync } from 'node:zlib';

// The text chunks of a PNG (tEXt, zTXt, iTXt), where the node-graph server
// saves the graph it ran (keyword `prompt`: the API format; `workflow`: the UI
// format). Bounded as the contract says: at most 512 chunks, 4 MiB per chunk
// (inflated ones included). Only what is needed is read: no pixel is decoded.

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_CHUNKS = 512;
const MAX_CHUNK_BYTES = 4 * 1024 * 1024;

export const isPng = (bytes: Buffer): boolean => bytes.length >= SIGNATURE.length && bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE);

/** Keyword → text of every text chunk; throws a message when the file is not a readable PNG. */
export function pngTextChunks(bytes: Buffer): Map<string, string> {
  if (!isPng(bytes)) throw new Error('not a PNG file');
  const texts = new Map<string, string>();
  let offset = SIGNATURE.length;
  for (let count = 0; offset + 8 <= bytes.length; count += 1) {
    if (count >= MAX_CHUNKS) throw new Error(`more than ${MAX_CHUNKS} chunks`);
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const start = offset + 8;
    const end = start + length;
    if (end + 4 > bytes.length) throw new Error(`chunk ${type} runs past the end of the file`);
    if (type === 'IEND') break;
    if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      if (length > MAX_CHUNK_BYTES) throw new Error(`a ${type} chunk is over ${MAX_CHUNK_BYTES} bytes`);
      const entry = readText(type, bytes.subarray(start, end));
      if (entry && !texts.has(entry.keyword)) texts.set(entry.keyword, entry.text);
    }
    offset = end + 4;
  }
  return texts;
}

const inflate = (data: Buffer): string => inflateSync(data, { maxOutputLength: MAX_CHUNK_BYTES }).toString('utf8');

function readText(type: string, data: Buffer): { keyword: string; text: string } | undefined {
  const nul = data.indexOf(0);
  if (nul <= 0) return undefined;
  const keyword = data.toString('latin1', 0, nul);
  if (type === 'tEXt') return { keyword, text: data.toString('latin1', nul + 1) };
  if (type === 'zTXt') return { keyword, text: inflate(data.subarray(nul + 2)) };
  // iTXt: keyword, compression flag and method, language tag, translated keyword, text (UTF-8).
  const compressed = data[nul + 1] === 1;
  const language = data.indexOf(0, nul + 3);
  const translated = language < 0 ? -1 : data.indexOf(0, language + 1);
  if (translated < 0) return undefined;
  const text = data.subarray(translated + 1);
  return { keyword, text: compressed ? inflate(text) : text.toString('utf8') };
}
