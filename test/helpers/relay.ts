import net from 'node:net';

/**
 * A TCP relay in front of a server, standing for the network between a browser and sheetd: what
 * goes through it can be cut (every open connection reset, new ones refused) and restored, as a
 * person's connection drops and comes back. Bytes are passed as they are.
 */
export interface Relay {
  /** http://127.0.0.1:PORT of the relay. */
  url: string;
  /** Resets every connection through the relay and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const to = new URL(target);
  const open = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((inbound) => {
    if (down) {
      inbound.resetAndDestroy();
      return;
    }
    const outbound = net.connect(Number(to.port), to.hostname);
    for (const s of [inbound, outbound]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      down = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close() {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
