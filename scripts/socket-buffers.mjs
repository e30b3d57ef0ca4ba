// Measures how many bytes a loopback TCP connection holds when its reader stops reading: a server
// writes 64 KiB pieces to a client that reads nothing, and counts what its `write()` took until no
// 'drain' came for a second. That is the kernel's send buffer plus the receiver's (plus Node's own
// buffer of the last piece): what a slow client's connection absorbs before its server feels it.
// A relay has two such hops (provider -> relay -> client). Prints one JSON line.
//
//   node scripts/socket-buffers.mjs
import { createServer, connect } from 'node:net';
import { readFileSync } from 'node:fs';

const PIECE = Buffer.alloc(64 * 1024, 0x61);

/** Bytes a connection held before its writer stayed blocked for `quietMs`. */
function measure(quietMs = 1000) {
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      let taken = 0;
      let timer;
      const settle = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          socket.destroy();
          client.destroy();
          server.close();
          resolve({ taken, pending: socket.writableLength });
        }, quietMs);
      };
      const pump = () => {
        while (socket.write(PIECE)) taken += PIECE.length;
        taken += PIECE.length;
        settle();
        socket.once('drain', pump);
      };
      pump();
    });
    let client;
    server.listen(0, '127.0.0.1', () => {
      client = connect(server.address().port, '127.0.0.1');
      client.pause(); // reads nothing: everything stays in the kernel's buffers
    });
  });
}

/** A kernel setting, or null where it cannot be read (not Linux). */
function sysctl(path) {
  try {
    return readFileSync(path, 'utf8').trim().split(/\s+/).map(Number);
  } catch {
    return null;
  }
}

const { taken, pending } = await measure();
console.log(
  JSON.stringify({
    heldBytes: taken - pending,
    acceptedByWrite: taken,
    tcp_wmem: sysctl('/proc/sys/net/ipv4/tcp_wmem'),
    tcp_rmem: sysctl('/proc/sys/net/ipv4/tcp_rmem'),
  }),
);
