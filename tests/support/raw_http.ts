/**
 * A minimal HTTP/1.1 GET over TCP, for requests whose Host header differs
 * from the address connected to (fetch always sends the URL's host).
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

/** GET `path` from the server at `baseUrl` (127.0.0.1) with `Host: host`. */
export async function getWithHost(
  baseUrl: string,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`,
      ),
    );
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(64 * 1024);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error("Timed out reading the response");
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    const text = new TextDecoder().decode(
      chunks.reduce((a, b) => {
        const joined = new Uint8Array(a.length + b.length);
        joined.set(a);
        joined.set(b, a.length);
        return joined;
      }, new Uint8Array()),
    );
    const split = text.indexOf("\r\n\r\n");
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
    conn.close();
  }
}
