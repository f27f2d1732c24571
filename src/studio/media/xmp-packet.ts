import { createHash } from 'node:crypto';

// The XMP packet that carries our metadata in JPEG and WebP files: one
// `svc:metadata` element whose text is the JSON payload. Any XMP reader
// (sharp's metadata().xmp, exiftool) sees it.

export const SVC_XMP_NAMESPACE = 'http://ns.svc.local/asset/1.0/';
const XMP_NOTE_NAMESPACE = 'http://ns.adobe.com/xmp/note/';

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_match, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ENTITIES[entity];
  });
}

const xmpmeta = (description: string): string =>
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">${description}</rdf:RDF></x:xmpmeta>`;

const wrapPacket = (body: string): string => `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>${body}<?xpacket end="w"?>`;

/** A complete XMP packet holding the JSON payload. */
export const buildXmpPacket = (json: string): string =>
  wrapPacket(
    xmpmeta(
      `<rdf:Description rdf:about="" xmlns:svc="${SVC_XMP_NAMESPACE}"><svc:metadata>${escapeXml(json)}</svc:metadata></rdf:Description>`,
    ),
  );

/**
 * Adobe's "extended XMP" split for JPEG, whose standard packet must fit one
 * 64 KB segment: the payload goes into the extended packet and the standard
 * one points at it by GUID (the MD5 of the extended packet).
 */
export function buildExtendedXmp(json: string): { standard: string; extended: Buffer; guid: string } {
  const extended = Buffer.from(
    xmpmeta(
      `<rdf:Description rdf:about="" xmlns:svc="${SVC_XMP_NAMESPACE}"><svc:metadata>${escapeXml(json)}</svc:metadata></rdf:Description>`,
    ),
  );
  const guid = createHash('md5').update(extended).digest('hex').toUpperCase();
  const standard = wrapPacket(
    xmpmeta(`<rdf:Description rdf:about="" xmlns:xmpNote="${XMP_NOTE_NAMESPACE}" xmpNote:HasExtendedXMP="${guid}"/>`),
  );
  return { standard, extended, guid };
}

/** The JSON payload inside an XMP packet, if it holds ours. */
export function svcPayloadOf(xml: string): string | undefined {
  const match = /<svc:metadata>([\s\S]*?)<\/svc:metadata>/.exec(xml);
  return match ? unescapeXml(match[1]) : undefined;
}

/** The GUID of the extended packet a standard packet points at. */
export function extendedGuidOf(xml: string): string | undefined {
  return /xmpNote:HasExtendedXMP="([0-9A-F]{32})"/.exec(xml)?.[1];
}

export const md5Hex = (bytes: Uint8Array): string => createHash('md5').update(bytes).digest('hex').toUpperCase();
