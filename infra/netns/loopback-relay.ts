/**
 * Runs inside a host's namespace (started by WorkerHosts.relayLoopbackPorts): for each `<port>=<address>:<port>`
 * argument it listens on the namespace's own 127.0.0.1:<port> and forwards to the address given (a gateway on the
 * bridge). A service that hands out loopback addresses of the root namespace (Sentinel naming the primary
 * `127.0.0.1:<port>`) is then reachable at those same addresses from the host. Prints `relay ready` once listening.
 */
import { startGateway } from './gateway';

const maps = process.argv.slice(2).map((arg) => {
  const m = /^(\d+)=([\d.]+):(\d+)$/.exec(arg);
  if (!m) throw new Error(`loopback-relay: expected <port>=<address>:<port>, got "${arg}"`);
  return { listenPort: Number(m[1]), targetHost: m[2], targetPort: Number(m[3]) };
});

Promise.all(maps.map((m) => startGateway({ listenHost: '127.0.0.1', listenPort: m.listenPort, targetHost: m.targetHost, targetPort: m.targetPort, delayMs: 0 })))
  .then(() => console.log('relay ready'))
  .catch((e: Error) => {
    console.error(`loopback-relay: ${e.message}`);
    process.exit(1);
  });
