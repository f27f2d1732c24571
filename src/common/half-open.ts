import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// Connections that have not yet sent a whole request head hold a slot for up
// to the headers timeout. Left alone, 1,024 of them (a slowloris, or a buggy
// client pool) take every slot and lock every client out for that long. They
// get a share of the slots instead: past it, the oldest such connection is
// closed to make room, so clients that send complete requests always get in.

/**
 * Bound the connections still waiting for their first request head to
 * `share`; a connection leaves that set the moment its request is parsed.
 */
export function boundHalfOpen(server: Server, share: number): void {
  // Insertion order is age order: the first entry is the oldest.
  const waiting = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
    while (waiting.size > share) {
      const oldest = waiting.values().next().value as Socket;
      waiting.delete(oldest);
      oldest.destroy();
    }
  });
  server.on('request', (request: { socket: Socket }) => {
    waiting.delete(request.socket);
  });
}
