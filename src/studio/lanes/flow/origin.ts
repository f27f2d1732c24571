import { ServiceError } from '../../errors.js';

// The origin rule (contract: flow-workflow-catalog §1.2): a node-graph server
// is reached only on this machine, by `http:` on 127.0.0.1, localhost or
// [::1] with an explicit port, and nothing else in the URL. The text is
// checked before the URL parser normalises it, so odd numeric spellings of
// loopback (127.1, 2130706433, 0x7f.1) are refused rather than accepted.

const ORIGIN = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):([0-9]{1,5})\/?$/i;

/** The origin in its canonical form (`http://127.0.0.1:8188`); FLOW_URL_NOT_LOCAL otherwise. */
export function checkOrigin(text: string): string {
  const match = ORIGIN.exec(text.trim());
  const port = match ? Number(match[2]) : 0;
  if (!match || port < 1 || port > 65535) {
    throw new ServiceError(
      'FLOW_URL_NOT_LOCAL',
      `"${text.slice(0, 200)}" is not a local node-graph server: use http://127.0.0.1:<port> (or localhost, [::1]) with nothing after the port.`,
      {
        details: { field: 'origin', origin: text.slice(0, 200) },
      },
    );
  }
  return `http://${match[1].toLowerCase()}:${port}`;
}
