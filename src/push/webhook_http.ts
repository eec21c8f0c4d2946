/**
 * One webhook POST, over a connection to an address the SSRF check accepted: TCP to that IP
 * (or to the next checked address when one cannot be reached), then TLS with the URL's host
 * name for SNI and certificate verification (`Deno.startTls`: the system's roots plus any
 * `caCerts`, never relaxed), then HTTP/1.1 with `Connection: close`. `fetch` would resolve the name again, so a host
 * that answers a public address to the check and a private one to the connection (DNS
 * rebinding) could reach the service's network; here the name is never resolved twice.
 * Redirects are not followed (any 3xx is a failed attempt), and only the status line and
 * headers of the answer are read, at most {@linkcode MAX_HEAD_BYTES}.
 */
import type { CheckedTarget } from "./webhook_target.ts";

/** Most bytes of the answer read: its status line and headers. */
export const MAX_HEAD_BYTES = 16 * 1024;

export interface PostOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Extra PEM roots to trust (tests' own certificate authority). */
  caCerts?: string[];
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

/**
 * A TCP connection to the first of the target's checked addresses that accepts one. Only a
 * failure to connect moves on to the next address; each address gets an equal share of what
 * is left of the attempt's budget (until `deadline`), so one that never answers cannot use
 * it all. The addresses are those `checkTarget` accepted: all of them passed the SSRF policy.
 */
async function connectToAny(
  target: CheckedTarget,
  context: { port: number; deadline: number; signal: AbortSignal },
): Promise<Deno.TcpConn> {
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

/** TLS over `tcp`, verifying the certificate for the URL's host; the handshake made now. */
async function secure(
  tcp: Deno.TcpConn,
  { url, caCerts }: { url: URL; caCerts?: string[] },
): Promise<Deno.TlsConn> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const conn = await Deno.startTls(tcp, { hostname, caCerts });
  try {
    await conn.handshake();
  } catch (error) {
    conn.close();
    throw new Error(`TLS handshake with "${hostname}" failed: ${messageOf(error)}`);
  }
  return conn;
}

async function exchange(
  target: CheckedTarget,
  options: PostOptions & { signal: AbortSignal; deadline: number },
  opened: (conn: Deno.Conn) => void,
): Promise<number> {
  const { url } = target;
  const https = url.protocol === "https:";
  const port = Number(url.port || (https ? 443 : 80));
  const tcp = await connectToAny(target, { ...options, port });
  opened(tcp);
  let conn: Deno.Conn = tcp;
  if (https) {
    conn = await secure(tcp, { url, caCerts: options.caCerts });
    opened(conn);
  }
  await writeAll(conn, requestBytes(url, options.headers, new TextEncoder().encode(options.body)));
  return await readStatus(conn);
}

/**
 * POSTs `options.body` to `target` through the first of its checked addresses that accepts
 * a connection, all within `options.timeoutMs`. Never throws: failures are in the outcome's
 * `error`.
 */
export async function postWebhook(
  target: CheckedTarget,
  options: PostOptions,
): Promise<PostOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  let conn: Deno.Conn | null = null;
  const close = () => {
    try {
      conn?.close();
    } catch { /* already closed */ }
  };
  // One timer bounds the whole exchange: it aborts the connect, or closes the connection.
  const timer = setTimeout(() => {
    controller.abort();
    close();
  }, options.timeoutMs);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const statusCode = await exchange(
      target,
      { ...options, signal: controller.signal, deadline: started + options.timeoutMs },
      (c) => (conn = c),
    );
    return { statusCode, error: null, durationMs: elapsed() };
  } catch (error) {
    const detail = controller.signal.aborted
      ? `No answer within ${Math.round(options.timeoutMs / 1000)} s`
      : messageOf(error);
    return { statusCode: null, error: detail.slice(0, 300), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    close();
  }
}
