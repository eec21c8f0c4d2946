/**
 * Minimal HTTP/1.1 requests over TCP, for requests whose Host header
 * differs from the address connected to (fetch always sends the URL's
 * host): custom-domain routing and DNS-rebinding tests need that.
 */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

function dechunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const eol = rest.indexOf("\r\n");
    if (eol < 0) break;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) break;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
  return out;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Sends one request to the server at `baseUrl` (127.0.0.1) with `Host: host` and reads the reply. */
export async function rawRequest(
  baseUrl: string,
  request: {
    method: string;
    path: string;
    host: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const timer = setTimeout(() => conn.close(), 10_000);
  try {
    const payload = new TextEncoder().encode(request.body ?? "");
    const headers = { ...request.headers };
    if (request.body !== undefined) headers["content-length"] = String(payload.length);
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    const head = `${request.method} ${request.path} HTTP/1.1\r\nHost: ${request.host}\r\n${extra}` +
      "Connection: close\r\n\r\n";
    await conn.write(concat([new TextEncoder().encode(head), payload]));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    const text = new TextDecoder().decode(concat(chunks));
    const split = text.indexOf("\r\n\r\n");
    if (split < 0) throw new Error("No complete response within 10 s");
    const [statusLine, ...lines] = text.slice(0, split).split("\r\n");
    const responseHeaders = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(":");
      responseHeaders.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const raw = text.slice(split + 4);
    const body = responseHeaders.get("transfer-encoding")?.includes("chunked") ? dechunk(raw) : raw;
    return { status: Number(statusLine.split(" ")[1]), headers: responseHeaders, body };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // already closed by the timeout
    }
  }
}

/** GET `path` with `Host: host`. */
export function getWithHost(
  baseUrl: string,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return rawRequest(baseUrl, { method: "GET", path, host, headers });
}

/** POST `body` to `path` with `Host: host`. */
export function postWithHost(
  baseUrl: string,
  path: string,
  host: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return rawRequest(baseUrl, { method: "POST", path, host, headers, body });
}
