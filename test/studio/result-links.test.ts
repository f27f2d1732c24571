import { describe, expect, it } from 'vitest';
import { linkRefusal } from '../../src/studio/upstream/public-link.js';

// The one rule for a vendor's result link (alpha, the MCP lanes, a remote
// video): https on a public address, or the lane's own origin.

const verdict = async (link: string, own?: string) => (await linkRefusal(new URL(link), own))?.reason;

describe('result links', () => {
  it('refuses internal addresses over https, however written', async () => {
    for (const link of [
      'https://127.0.0.1/a.png',
      'https://10.1.2.3/a.png',
      'https://192.168.0.9/a.mp4',
      'https://169.254.169.254/latest',
      'https://[::1]/a.png',
      'https://[::ffff:127.0.0.1]/a.png',
      'https://[fd00::1]/a.png',
    ]) {
      expect(await verdict(link), link).toMatch(/internal address/);
    }
  });

  it('refuses plain http elsewhere and credentials anywhere; takes a public https address and the own origin', async () => {
    expect(await verdict('http://93.184.216.34/a.png')).toMatch(/only https/);
    expect(await verdict('https://user:secret@93.184.216.34/a.png')).toMatch(/credentials/);
    expect(await verdict('http://user:secret@127.0.0.1:4000/a.png', 'http://127.0.0.1:4000')).toMatch(/credentials/);
    expect(await verdict('https://93.184.216.34/a.png')).toBeUndefined();
    expect(await verdict('http://127.0.0.1:4000/files/a.png', 'http://127.0.0.1:4000')).toBeUndefined();
    // Another port of the same host is not the lane's origin.
    expect(await verdict('http://127.0.0.1:4001/files/a.png', 'http://127.0.0.1:4000')).toMatch(/only https/);
  });
});
