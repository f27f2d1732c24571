import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

// The vendor writes the parameters it ran with into the PNG as a tEXt
// `Comment` chunk of JSON, the seed among them (contract §7, inferred); the
// simulator does the same, picking a seed when the request gave none.

const SIGNATURE_LENGTH = 8;

function textChunk(keyword: string, text: string): Buffer {
  const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write('tEXt', 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The PNG with a `Comment` chunk after its IHDR holding `{ seed, steps... }` as the vendor writes it. */
export function withComment(png: Buffer, parameters: { seed?: number; width: number; height: number }): Buffer {
  const seed = parameters.seed ?? randomInt(0, 2 ** 32 - 1);
  const ihdrEnd = SIGNATURE_LENGTH + 12 + png.readUInt32BE(SIGNATURE_LENGTH);
  const comment = JSON.stringify({ seed, width: parameters.width, height: parameters.height, n_samples: 1 });
  return Buffer.concat([png.subarray(0, ihdrEnd), textChunk('Comment', comment), png.subarray(ihdrEnd)]);
}
