import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL, Redis) that a test can cut and
 * restore, to drive an outage of that server without touching it: `cut()` ends every proxied
 * connection and refuses new ones (ECONNREFUSED), `restore()` listens again on the same port.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const makeServer = (): Server =>
    createServer((client) => {
      const upstream = createConnection(target);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const a = server.address();
        resolve(typeof a === 'object' && a !== null ? a.port : port);
      });
    });
  const stop = (server: Server) =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });

  let server = makeServer();
  const port = await listen(server, 0);
  let up = true;
  return {
    port,
    async cut() {
      if (!up) return;
      up = false;
      await stop(server);
    },
    async restore() {
      if (up) return;
      server = makeServer();
      await listen(server, port);
      up = true;
    },
    async close() {
      if (up) await stop(server);
      up = false;
    },
  };
}
