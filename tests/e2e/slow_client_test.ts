/**
 * Slow clients: a request body that stalls is answered 408 once the body
 * time limit passes, so no handler waits on it and its buffer is freed.
 * Deno.serve itself has no limit on the time to send headers, on idle
 * connections, or on a socket whose body never ends (it keeps the socket
 * after the 408 until the client leaves); docs/decisions.md ("Slow clients")
 * names the reverse-proxy settings that bound those.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/server.ts";

const decoder = new TextDecoder();

/** The response head and body the server sends on `conn`, read until `waitMs` passes. */
async function readResponse(conn: Deno.Conn, waitMs: number): Promise<string> {
  const timer = setTimeout(() => conn.close(), waitMs);
  let text = "";
  const buffer = new Uint8Array(16 * 1024);
  try {
    // One response: the head, then a body of the announced length.
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && text.length >= end + 4 + length) break;
    }
  } catch {
    // Closed by the timer: the assertions below report what arrived.
  } finally {
    clearTimeout(timer);
  }
  try {
    conn.close();
  } catch {
    // Already closed by the timer.
  }
  return text;
}

Deno.test("[e2e] slow clients: a stalled request body gets 408", async (t) => {
  await using server = await startTestServer({
    worker: false,
    env: { BODY_TIMEOUT_SECONDS: "1" },
  });
  const { port } = new URL(server.baseUrl);
  const token = await server.tokenFor("slow");

  for (
    const [name, path, limit] of [
      ["an API route", "/organizations", "256 KiB"],
      ["the evidence route", "/ingest/evidence", "MAX_EVIDENCE_BYTES"],
    ]
  ) {
    await t.step(`${name} (${limit} limit)`, async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
      const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 100\r\n\r\n{"name":`;
      await conn.write(new TextEncoder().encode(head));
      const reply = await readResponse(conn, 15_000);
      assert.match(reply, /^HTTP\/1\.1 408 /);
      assert.match(reply, /\r\nconnection: close\r\n/i);
      assert.match(reply, /"code":"request_timeout"/);
    });
  }

  await t.step("a body that arrives in time is read as usual", async () => {
    const res = await fetch(`${server.baseUrl}/organizations`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Acme" }),
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  });
});
