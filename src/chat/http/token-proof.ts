import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../errors.js';

/**
 * Token proof: how a chat server shows a client (the manager) that it holds
 * the access token before the client sends it. The client sends a fresh nonce
 * on a connection; the server answers HMAC-SHA256(token, nonce + the address
 * and port the connection reached), which only a holder of the token can
 * compute. Binding the answer to the listening endpoint is what makes it
 * worthless to a stranger on another port: relaying the nonce to the real
 * server gets a proof for the real server's endpoint, not the stranger's.
 * Answering it gives nothing away: HMAC does not reveal its key.
 */
export const TOKEN_PROOF_PATH = '/api/token-proof';

/** 128 bits or more, in hex. */
const NONCE = /^[0-9a-f]{32,128}$/;

/** An endpoint as both ends name it (an IPv4-mapped IPv6 address in its IPv4 form). */
export const endpointName = (address: string | undefined, port: number | undefined): string =>
  `${(address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')} ${port ?? 0}`;

export const tokenProof = (token: string, nonce: string, endpoint: string): string =>
  createHmac('sha256', token).update(`svc-chat token proof v1\n${nonce}\n${endpoint}`).digest('hex');

/** What the route answers: `proof` is null when the server needs no token. */
export interface TokenProofAnswer {
  service: 'svc-chat';
  proof: string | null;
}

/** `GET /api/token-proof?nonce=<hex>`: served without the token (it is how a client learns it may send it). */
export function registerTokenProof(app: FastifyInstance, token: string | undefined): void {
  app.get(TOKEN_PROOF_PATH, async (request): Promise<TokenProofAnswer> => {
    const { nonce } = request.query as { nonce?: unknown };
    if (typeof nonce !== 'string' || !NONCE.test(nonce)) throw new ServiceError('BAD_REQUEST', 'nonce: 32 to 128 lowercase hex digits.');
    const socket = request.raw.socket;
    return { service: 'svc-chat', proof: token ? tokenProof(token, nonce, endpointName(socket.localAddress, socket.localPort)) : null };
  });
}
