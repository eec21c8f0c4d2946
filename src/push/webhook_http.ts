/**
 * One webhook POST, by the first of three paths the platform allows, each keeping the request
 * from reaching an address the SSRF policy (webhook_target.ts) refuses:
 *
 * 1. Pinned: TCP (`Deno.connect`) to an address `checkTarget` accepted (the next checked one
 *    when one cannot be reached), then TLS over it (`Deno.startTls`) with the URL's host name for
 *    SNI and certificate verification. The name is resolved once, by the check: no DNS
 *    rebinding window at all. `fetch` would resolve the name again.
 * 2. Checked peer, for https when the platform refuses that TCP connection or `startTls` (Deno
 *    Deploy Classic refused both towards port 443, asking for `Deno.connectTls`):
 *    `Deno.connectTls` to the URL's host name, which verifies the certificate for that name.
 *    Deno resolves the name again, so the address the connection reached (`remoteAddr`) must
 *    pass the same policy before a byte of the request is written, else it is closed unused.
 *    Left open: a rebinding answer can make the TCP connection and the TLS ClientHello (not the
 *    request) reach a refused address, and whether one accepted shows in the attempt's error.
 *    Deno offers no TLS option to connect to an address but verify another name (no server-name
 *    option on `connectTls`; `createHttpClient`'s `proxy: { transport: "tcp" }` speaks plain HTTP
 *    over its socket on Deno 2.9 and is not accepted on 2.5), hence this path.
 * 3. Fetch, when `Deno.connectTls` is refused too: the name is checked again (resolved, every
 *    address judged) immediately before `fetch(url, { redirect: "manual" })`, which resolves it
 *    once more itself and cannot show the peer before sending. Left open: a DNS answer that
 *    changes between that re-check and fetch's own lookup (an attacker's name server can answer
 *    differently to consecutive queries) sends the request to whatever address fetch got.
 *
 * "Refused" is `Deno.errors.PermissionDenied`, `Deno.errors.NotCapable`, or an error whose
 * message names `connectTls`; any other failure is the attempt's outcome. Plain http (loopback
 * only) takes path 1 alone. On every path redirects are not followed (any 3xx is a failed
 * attempt) and one timer bounds the attempt. Paths 1 and 2 speak HTTP/1.1 with `Connection:
 * close` and read only the answer's status line and headers, at most {@linkcode MAX_HEAD_BYTES};
 * on path 3 fetch reads the head under its own limits and the body is cancelled unread.
 */
import {
  addressRefusal,
  type CheckedTarget,
  checkTarget,
  TargetRefused,
} from "./webhook_target.ts";

/** Most bytes of the answer read: its status line and headers. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** Which path (see above) carried an attempt's request. */
export type PostPath = "pinned" | "connectTls" | "fetch";

export interface PostOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The path that sent the request; absent when none did. */
  path?: PostPath;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Extra PEM roots to trust (tests' own certificate authority). */
  caCerts?: string[];
  /**
   * Aborts the exchange before its timeout: the job worker cuts a heavy party's attempt short
   * while a light party's job waits for its slot (src/live/worker.ts).
   */
  cutShort?: AbortSignal;
}

function requestBytes(url: URL, headers: Record<string, string>, body: Uint8Array): Uint8Array {
  const lines = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    "Connection: close",
    `Content-Length: ${body.length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  const head = new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`);
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Reads until the end of the response head; returns the status code. */
async function readStatus(conn: Deno.Conn): Promise<number> {
  const buffer = new Uint8Array(MAX_HEAD_BYTES);
  let length = 0;
  const decoder = new TextDecoder();
  while (length < buffer.length) {
    const n = await conn.read(buffer.subarray(length));
    if (n === null) break;
    length += n;
    const text = decoder.decode(buffer.subarray(0, length));
    const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n/.exec(text);
    if (text.includes("\r\n\r\n") || (match && length >= MAX_HEAD_BYTES)) {
      if (!match) break;
      return Number(match[1]);
    }
  }
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(decoder.decode(buffer.subarray(0, length)));
  if (match && length > 0) return Number(match[1]);
  throw new Error(length === 0 ? "The connection closed without an answer" : "Not an HTTP answer");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The platform refused a kind of connection (not this peer): the next path is tried. */
class PlatformRefused extends Error {}

function isPlatformRefusal(error: unknown): boolean {
  return error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.NotCapable ||
    (error instanceof Error && /connectTls/.test(error.message));
}

/** `work`, or a rejection when `signal` aborts first; what `work` yields late goes to `late`. */
function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  late: (value: T) => void = () => {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      reject(new Error("Aborted"));
      work.then(late, () => {});
    };
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

interface Context {
  port: number;
  deadline: number;
  signal: AbortSignal;
  caCerts?: string[];
  /**
   * Every connection opened is handed here, so the attempt's end or timer closes it; a TLS
   * connection names the TCP connection it took over (`replaces`).
   */
  opened: (conn: Deno.Conn, replaces?: Deno.Conn) => void;
}

/** The URL's host as TLS takes it: a name, or an IP literal without brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * A TCP connection to the first of the target's checked addresses that accepts one. Only a
 * failure to connect moves on to the next address; each address gets an equal share of what
 * is left of the attempt's budget (until `deadline`), so one that never answers cannot use
 * it all. The addresses are those `checkTarget` accepted: all of them passed the SSRF policy.
 * A refusal by the platform (not by the peer) ends the loop: it would refuse every address.
 */
async function connectToAny(target: CheckedTarget, context: Context): Promise<Deno.TcpConn> {
  const failures: string[] = [];
  const { addresses } = target;
  for (let i = 0; i < addresses.length; i++) {
    const share = Math.max(0, (context.deadline - performance.now()) / (addresses.length - i));
    const controller = new AbortController();
    const stop = () => controller.abort();
    const timer = setTimeout(stop, share);
    context.signal.addEventListener("abort", stop);
    try {
      return await Deno.connect({
        hostname: addresses[i],
        port: context.port,
        signal: controller.signal,
      });
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (isPlatformRefusal(error)) {
        throw new PlatformRefused(
          `TCP to ${addresses[i]}:${context.port} is refused here: ${messageOf(error)}`,
        );
      }
      const reason = controller.signal.aborted
        ? `no connection within ${Math.round(share)} ms`
        : messageOf(error);
      failures.push(`${addresses[i]}: ${reason}`);
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", stop);
    }
  }
  throw new Error(`Could not connect to ${failures.join("; ")}`);
}

/** Completes the handshake now, so a certificate refused for `hostname` is told as such. */
async function handshake(conn: Deno.TlsConn, hostname: string): Promise<void> {
  try {
    await conn.handshake();
  } catch (error) {
    conn.close();
    throw new Error(`TLS handshake with "${hostname}" failed: ${messageOf(error)}`);
  }
}

/** Path 1: TCP to a checked address, then (https) TLS over it for the URL's host name. */
async function pinned(target: CheckedTarget, context: Context): Promise<Deno.Conn> {
  const tcp = await connectToAny(target, context);
  context.opened(tcp);
  if (target.url.protocol !== "https:") return tcp;
  const hostname = hostOf(target.url);
  let conn: Deno.TlsConn;
  try {
    conn = await Deno.startTls(tcp, { hostname, caCerts: context.caCerts });
  } catch (error) {
    if (!isPlatformRefusal(error)) throw error;
    tcp.close();
    throw new PlatformRefused(`TLS over TCP is refused here: ${messageOf(error)}`);
  }
  context.opened(conn, tcp);
  await handshake(conn, hostname);
  return conn;
}

/** Path 2: `connectTls` to the URL's host name, used only if the address it reached passes. */
async function checkedPeer(target: CheckedTarget, context: Context): Promise<Deno.TlsConn> {
  const hostname = hostOf(target.url);
  let conn: Deno.TlsConn;
  try {
    conn = await unlessAborted(
      Deno.connectTls({ hostname, port: context.port, caCerts: context.caCerts }),
      context.signal,
      (late) => late.close(),
    );
  } catch (error) {
    if (!isPlatformRefusal(error)) throw error;
    throw new PlatformRefused(`TLS connections are refused here too: ${messageOf(error)}`);
  }
  context.opened(conn);
  const refusal = addressRefusal(conn.remoteAddr.hostname, target.policy?.allowPrivate ?? false);
  if (refusal) {
    throw new Error(`The connection to "${hostname}" reached ${refusal}; nothing was sent`);
  }
  await handshake(conn, hostname);
  return conn;
}

/** Path 3: the target checked again, then `fetch` without following redirects. */
async function viaFetch(
  target: CheckedTarget,
  context: Context & { headers: Record<string, string>; body: string },
): Promise<number> {
  if (!target.policy) {
    throw new Error("TLS connections are refused here and the target cannot be checked again");
  }
  let fresh: CheckedTarget;
  try {
    fresh = await unlessAborted(checkTarget(target.url.href, target.policy), context.signal);
  } catch (error) {
    if (error instanceof TargetRefused) throw new Error(`Checked again: ${error.message}`);
    throw error;
  }
  const client = Deno.createHttpClient({
    caCerts: context.caCerts,
    poolMaxIdlePerHost: 0,
    http2: false,
  });
  try {
    const response = await fetch(fresh.url, {
      method: "POST",
      headers: context.headers,
      body: context.body,
      redirect: "manual",
      signal: context.signal,
      client,
    });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    const cause = error instanceof Error && error.cause ? `: ${messageOf(error.cause)}` : "";
    throw new Error(`${messageOf(error)}${cause}`);
  } finally {
    client.close();
  }
}

async function exchange(
  target: CheckedTarget,
  options: PostOptions & Context,
): Promise<{ statusCode: number; path: PostPath }> {
  const { url } = target;
  let conn: Deno.Conn;
  let path: PostPath = "pinned";
  try {
    conn = await pinned(target, options);
  } catch (error) {
    if (!(error instanceof PlatformRefused) || url.protocol !== "https:") throw error;
    try {
      conn = await checkedPeer(target, options);
      path = "connectTls";
    } catch (error) {
      if (!(error instanceof PlatformRefused)) throw error;
      return { statusCode: await viaFetch(target, options), path: "fetch" };
    }
  }
  await writeAll(conn, requestBytes(url, options.headers, new TextEncoder().encode(options.body)));
  return { statusCode: await readStatus(conn), path };
}

/**
 * POSTs `options.body` to `target` by the first path the platform allows (see above), all
 * within `options.timeoutMs`. Never throws: failures are in the outcome's `error`.
 */
export async function postWebhook(
  target: CheckedTarget,
  options: PostOptions,
): Promise<PostOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  const conns: Deno.Conn[] = [];
  const close = () => {
    for (const conn of conns.splice(0)) {
      try {
        conn.close();
      } catch { /* already closed */ }
    }
  };
  // One timer bounds the whole exchange: it aborts the connect or fetch, or closes the connection.
  const timer = setTimeout(() => {
    controller.abort();
    close();
  }, options.timeoutMs);
  const elapsed = () => Math.round(performance.now() - started);
  let cut = false;
  const cutNow = () => {
    cut = true;
    controller.abort();
    close();
  };
  if (options.cutShort?.aborted) cutNow();
  else options.cutShort?.addEventListener("abort", cutNow, { once: true });
  try {
    const https = target.url.protocol === "https:";
    const { statusCode, path } = await exchange(target, {
      ...options,
      port: Number(target.url.port || (https ? 443 : 80)),
      signal: controller.signal,
      deadline: started + options.timeoutMs,
      opened: (conn, replaces) => {
        const index = replaces ? conns.indexOf(replaces) : -1;
        if (index >= 0) conns.splice(index, 1);
        conns.push(conn);
      },
    });
    return { statusCode, error: null, durationMs: elapsed(), path };
  } catch (error) {
    const detail = cut
      ? `No answer within ${
        Math.round(elapsed() / 1000)
      } s, cut short: other parties' deliveries were waiting for this worker's outbound slots`
      : controller.signal.aborted
      ? `No answer within ${Math.round(options.timeoutMs / 1000)} s`
      : messageOf(error);
    return { statusCode: null, error: detail.slice(0, 300), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    options.cutShort?.removeEventListener("abort", cutNow);
    close();
  }
}
