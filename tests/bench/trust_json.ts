/**
 * GET /trust/{slug}/trust.json of the real service against a bare
 * Deno.serve returning the same bytes from memory, both in their own
 * process, loaded by wrk in the same run. The bare server sends the same
 * response headers as the service (content type, cache policy, ETag, CORS,
 * nosniff: all part of the contract), so the ratio measures the service's
 * own work, not header bytes on the wire. Prints throughput, p99 latency and
 * the ratio of throughputs (target >= 0.85).
 */
import { startBenchService } from "./_harness.ts";
import { freePort } from "../support/process.ts";

const DURATION = Deno.env.get("BENCH_DURATION") ?? "5s";
const CONNECTIONS = Deno.env.get("BENCH_CONNECTIONS") ?? "32";

interface WrkResult {
  rps: number;
  p99: string;
}

function parseLatency(text: string): string {
  return text.match(/^\s*99%\s+(\S+)/m)?.[1] ?? "?";
}

async function wrk(url: string, duration = DURATION): Promise<WrkResult> {
  const out = await new Deno.Command("wrk", {
    args: ["-t2", `-c${CONNECTIONS}`, `-d${duration}`, "--latency", url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1]);
  if (!out.success || !rps) {
    throw new Error(`wrk failed: ${text}${new TextDecoder().decode(out.stderr)}`);
  }
  if (/Non-2xx or 3xx responses/.test(text)) throw new Error(`wrk saw errors: ${text}`);
  return { rps, p99: parseLatency(text) };
}

/** A bare server in its own process answering every request with `file`'s bytes and `headers`. */
async function startBareServer(file: string, headers: Record<string, string>) {
  const port = freePort();
  const code = `
    const bytes = await Deno.readFile(${JSON.stringify(file)});
    const headers = ${JSON.stringify(headers)};
    Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() { console.log("ready"); } },
      () => new Response(bytes, { headers }));
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = Date.now() + 20_000;
  let seen = "";
  while (!seen.includes("ready")) {
    if (Date.now() > deadline) throw new Error("The bare server did not start");
    const { value, done } = await reader.read();
    if (done) throw new Error("The bare server exited");
    seen += value;
  }
  reader.releaseLock();
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}

export async function benchTrustJson(): Promise<{ ratio: number; line: string }> {
  const service = await startBenchService();
  const dir = await Deno.makeTempDir();
  try {
    const published = await fetch(`${service.baseUrl}/projects/${service.projectId}/publish`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.humanToken}` },
    });
    if (published.status !== 201) throw new Error(`publish failed: ${await published.text()}`);
    await published.body?.cancel();
    const url = `${
      service.baseUrl.replace("localhost", "127.0.0.1")
    }/trust/${service.slug}/trust.json`;
    const sample = await fetch(url);
    const bytes = new Uint8Array(await sample.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const [name, value] of sample.headers) {
      if (!["content-length", "date", "vary"].includes(name)) headers[name] = value;
    }
    const file = `${dir}/trust.json`;
    await Deno.writeFile(file, bytes);
    const bare = await startBareServer(file, headers);
    try {
      // Warm both servers up (JIT, caches) before measuring either.
      await wrk(bare.url, "2s");
      await wrk(url, "2s");
      const baseline = await wrk(bare.url);
      const served = await wrk(url);
      const ratio = served.rps / baseline.rps;
      return {
        ratio,
        line: `trust.json: service ${
          served.rps.toFixed(0)
        } req/s (p99 ${served.p99}), bare Deno.serve ${
          baseline.rps.toFixed(0)
        } req/s (p99 ${baseline.p99}), ratio ${
          ratio.toFixed(2)
        } (target >= 0.85; ${bytes.length} bytes, wrk -t2 -c${CONNECTIONS} -d${DURATION})`,
      };
    } finally {
      await bare.close();
    }
  } finally {
    await service.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log((await benchTrustJson()).line);
