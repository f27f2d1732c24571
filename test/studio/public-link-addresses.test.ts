import { describe, expect, it } from 'vitest';
import { isInternalAddress, linkRefusal } from '../../src/studio/upstream/public-link.js';

// Issue 45 item 11: the public-link rule let [::127.0.0.1], [64:ff9b::7f00:1],
// [fec0::1], [2002:7f00:1::] and 192.0.2.1 through. It now holds the complete
// special-purpose address table, and judges an IPv6 address that carries an
// IPv4 one (mapped, compatible, NAT64) by that address.

describe('the public-link rule', () => {
  it('refuses every link the probe got through, by IP literal', async () => {
    for (const host of [
      '[::127.0.0.1]',
      '[64:ff9b::7f00:1]',
      '[fec0::1]',
      '[2002:7f00:1::]',
      '192.0.2.1',
      '[::ffff:7f00:1]',
      '198.51.100.7',
      '203.0.113.9',
      '[2001:db8::1]',
      '[100::1]',
      '[3fff::1]',
      '[5f00::1]',
      '[2001::1]',
      '240.0.0.1',
    ]) {
      const refusal = await linkRefusal(new URL(`https://${host}/result.png`), undefined);
      expect(refusal?.reason, host).toMatch(/internal address/);
    }
  });

  it('lets public addresses through, an IPv4 one carried in NAT64 or mapped IPv6 too', async () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001:80b::200e', '64:ff9b::808:808', '::ffff:8.8.8.8'])
      expect(isInternalAddress(address), address).toBe(false);
    expect(await linkRefusal(new URL('https://[2606:4700::1111]/result.png'), undefined)).toBeUndefined();
  });
});

describe('a refused link in a message', () => {
  it('names a link without an origin by its scheme, never "null", and never its query', async () => {
    const { linkForMessage } = await import('../../src/studio/upstream/public-link.js');
    expect(linkForMessage(new URL('file:///etc/passwd'))).toBe('a file: link');
    expect(linkForMessage(new URL('data:video/mp4;base64,AAAA'))).toBe('a data: link');
    expect(linkForMessage(new URL('https://cdn.example/v/1.mp4?sig=secret'))).toBe('https://cdn.example/v/1.mp4');
  });
});

describe('a refused result link of a lane', () => {
  it('is worded for any result (a video link is no "image link") and names no "null" origin', async () => {
    const { checkedLink } = await import('../../src/studio/lanes/alpha/download.js');
    const call = { lane: 'alpha-api' } as Parameters<typeof checkedLink>[0];
    for (const link of ['file:///tmp/clip.mp4', 'data:video/mp4;base64,AAAA', 'https://[::127.0.0.1]/clip.mp4']) {
      const refused = await checkedLink(call, link, 'http://127.0.0.1:9').then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(refused, link).toMatch(/gave a result link the studio does not fetch/);
      expect(refused).not.toMatch(/image|null/);
    }
  });
});
