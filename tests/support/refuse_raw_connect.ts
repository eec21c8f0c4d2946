/**
 * Preloaded before a program (`deno run --preload tests/support/refuse_raw_connect.ts main.ts`),
 * this refuses raw TCP the way Deno Deploy Classic did: `Deno.connect` to one of the refused
 * ports, and `Deno.startTls` over a connection to one, throw `Deno.errors.PermissionDenied`
 * ("… use Deno.connectTls"). `Deno.connectTls`, `fetch`, listening and other ports are left
 * alone. Each refusal is also written to stderr (`Refused here: Deno.connect to host:port`), so a
 * test can see that it happened.
 *
 * Environment (read once, when this module runs):
 * - `REFUSE_RAW_CONNECT_PORTS`: comma-separated ports (default `443,25,465,587`: HTTPS and
 *   SMTP). A test whose server listens on a random port lists that port to stand for 443.
 * - `REFUSE_CONNECT_TLS_PORTS`: comma-separated ports `Deno.connectTls` is refused for as well
 *   (default none): a platform that offers nothing but `fetch` towards them.
 *
 * It patches the `Deno` namespace of the isolate it runs in and exports nothing: preloading it
 * (or importing it first) is all there is to using it.
 */

function ports(name: string, fallback: string): Set<number> {
  const text = Deno.env.get(name) ?? fallback;
  return new Set(text.split(",").map((part) => part.trim()).filter(Boolean).map(Number));
}

const rawPorts = ports("REFUSE_RAW_CONNECT_PORTS", "443,25,465,587");
const tlsPorts = ports("REFUSE_CONNECT_TLS_PORTS", "");

function refuse(what: string, hostname: string | undefined, port: number, hint: string): never {
  const where = `${hostname ?? "127.0.0.1"}:${port}`;
  console.error(`Refused here: ${what} to ${where}`);
  throw new Deno.errors.PermissionDenied(`${what} to ${where} is not allowed here${hint}`);
}

const deno = Deno as unknown as Record<string, unknown>;

const connect = Deno.connect;
deno.connect = function (options: { transport?: string; hostname?: string; port?: number }) {
  const tcp = options.transport === undefined || options.transport === "tcp";
  if (tcp && rawPorts.has(Number(options.port))) {
    refuse("Deno.connect", options.hostname, Number(options.port), ", use Deno.connectTls");
  }
  return (connect as (options: unknown) => Promise<Deno.Conn>)(options);
};

const startTls = Deno.startTls;
deno.startTls = function (conn: Deno.TcpConn, options?: Deno.StartTlsOptions) {
  const peer = conn.remoteAddr;
  if (rawPorts.has(peer.port)) {
    refuse("Deno.startTls", peer.hostname, peer.port, ", use Deno.connectTls");
  }
  return startTls(conn, options);
};

const connectTls = Deno.connectTls;
deno.connectTls = function (options: Deno.ConnectTlsOptions) {
  if (tlsPorts.has(options.port)) refuse("Deno.connectTls", options.hostname, options.port, "");
  return connectTls(options);
};
