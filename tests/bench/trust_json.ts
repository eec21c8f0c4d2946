/**
 * GET /trust/{slug}/trust.json of the real service against a bare
 * Deno.serve returning the same bytes from memory, both in their own
 * process, loaded by wrk in the same run. The bare server sends the same
 * response headers as the service (content type, cache policy, ETag, CORS,
 * nosniff: all part of the contract), so the ratio measures the service's
 * own work, not header bytes on the wire.
 *
 * After a warm-up of each, the servers are measured in rounds whose order
 * rotates, and the ratio is the median of the rounds' ratios, so load that
 * drifts during the run (wrk shares the machine with the servers, and often
 * with other work) biases no side. Prints throughput and p99 latency (medians
 * over the rounds) and the ratio of throughputs (target >= 0.85), with the
 * spread of the rounds' ratios. A third server, bare but reading the URL and
 * If-None-Match as any conditional GET must, shows how much of the gap is
 * that reading (Deno materializes the request's headers on first access)
 * rather than the service's own code.
 *
 * With BENCH_ACCEPT_ENCODING (e.g. "gzip, br"), wrk sends that Accept-Encoding and the bare
 * servers return the bytes and headers the service answers to it (its stored encoding,
 * Content-Encoding, Vary), so the service's choice of coding is part of what is measured.
 */
import { request as httpRequest } from "node:http";
import { median, processCpuMs, startBenchService } from "./_harness.ts";
import { freePort } from "../support/process.ts";

const DURATION = Deno.env.get("BENCH_DURATION") ?? "2s";
const CONNECTIONS = Deno.env.get("BENCH_CONNECTIONS") ?? "32";
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const ACCEPT_ENCODING = Deno.env.get("BENCH_ACCEPT_ENCODING") ?? "";
const TARGET = 0.85;

interface WrkResult {
  rps: number;
  /** 99th percentile latency in milliseconds. */
  p99: number;
  /** Requests completed in the run. */
  requests: number;
}

interface Measured extends WrkResult {
  /** The server process's CPU time per request in microseconds, where /proc tells it. */
  cpuUs: number | null;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** wrk's latency figures ("850.00us", "2.35ms", "1.02s") in milliseconds. */
export function parseDuration(text: string): number {
  const m = text.match(/^([\d.]+)(us|ms|s|m)$/);
  if (!m) throw new Error(`Unexpected wrk duration "${text}"`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/** Requests/sec and the 99% line of `wrk --latency` output; throws on errors it reports. */
export function parseWrk(text: string): WrkResult {
  const rps = Number(text.match(/^Requests\/sec:\s+([\d.]+)/m)?.[1]);
  const p99 = text.match(/^\s*99%\s+(\S+)/m)?.[1];
  if (!rps || !p99) throw new Error(`Unexpected wrk output:\n${text}`);
  if (/Non-2xx or 3xx responses/.test(text)) throw new Error(`wrk saw error statuses:\n${text}`);
  const socket = text.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  if (socket && socket.slice(1).some((n) => Number(n) > 0)) {
    throw new Error(`wrk saw socket errors:\n${text}`);
  }
  const requests = Number(text.match(/^\s*(\d+) requests in /m)?.[1]);
  if (!requests) throw new Error(`Unexpected wrk output:\n${text}`);
  return { rps, p99: parseDuration(p99), requests };
}

async function wrk(url: string, duration = DURATION): Promise<WrkResult> {
  const out = await new Deno.Command("wrk", {
    args: [
      "-t2",
      `-c${CONNECTIONS}`,
      `-d${duration}`,
      "--latency",
      ...(ACCEPT_ENCODING ? ["-H", `Accept-Encoding: ${ACCEPT_ENCODING}`] : []),
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`wrk failed: ${text}${new TextDecoder().decode(out.stderr)}`);
  }
  return parseWrk(text);
}

/** One wrk run against a server, with the CPU time its process spent serving it. */
export async function measure(
  target: { url: string; pid: number },
  duration?: string,
): Promise<Measured> {
  const before = processCpuMs(target.pid);
  const result = await wrk(target.url, duration);
  const after = processCpuMs(target.pid);
  const cpuUs = before === null || after === null
    ? null
    : ((after - before) * 1000) / result.requests;
  return { ...result, cpuUs };
}

/**
 * The baseline handler, and the same handler after reading what any conditional GET must
 * read (the URL, and a request header, which makes Deno build the request's Headers):
 * the second tells how much of the gap is that reading rather than the service's own code.
 */
const HANDLERS = {
  bare: "() => new Response(bytes, { headers })",
  reading: `(req) => {
      const path = req.url;
      const tag = req.headers.get("if-none-match");
      return path && tag === headers.etag ? new Response(null, { status: 304 })
        : new Response(bytes, { headers });
    }`,
};

/** A bare server in its own process answering every request with `file`'s bytes and `headers`. */
async function startBareServer(
  file: string,
  headers: Record<string, string>,
  handler: keyof typeof HANDLERS,
) {
  const port = freePort();
  const code = `
    const bytes = await Deno.readFile(${JSON.stringify(file)});
    const headers = ${JSON.stringify(headers)};
    Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() { console.log("ready"); } },
      ${HANDLERS[handler]});
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const close = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already exited
    }
    await child.status;
    await child.stdout.cancel().catch(() => {});
  };
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => reader.cancel(new Error("timeout")).catch(() => {}), 20_000);
  try {
    let seen = "";
    while (!seen.includes("ready")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("The bare server exited or did not start within 20 s");
      seen += value;
    }
  } catch (error) {
    await close();
    throw error;
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, close };
}

/** One GET with node:http, which hands over the body as sent (no decoding). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Uint8Array }>(
    (resolve, reject) => {
      const req = httpRequest(url, { headers }, (res) => {
        const chunks: Uint8Array[] = [];
        res.on("data", (chunk: Uint8Array) => chunks.push(chunk));
        res.on("end", () => {
          const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
          let at = 0;
          for (const chunk of chunks) {
            body.set(chunk, at);
            at += chunk.length;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    },
  );
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
    // The bytes as sent (fetch would decode a compressed body), and every header but the
    // ones the HTTP server writes itself.
    const sample = await rawGet(url, ACCEPT_ENCODING ? { "accept-encoding": ACCEPT_ENCODING } : {});
    const bytes = sample.body;
    if (sample.status !== 200) throw new Error(`GET trust.json answered ${sample.status}`);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(sample.headers)) {
      if (!["content-length", "date", "connection", "keep-alive"].includes(name)) {
        headers[name] = String(value);
      }
    }
    const file = `${dir}/trust.json`;
    await Deno.writeFile(file, bytes);
    const bare = await startBareServer(file, headers, "bare");
    const reading = await startBareServer(file, headers, "reading").catch(async (error) => {
      await bare.close();
      throw error;
    });
    try {
      const targets = { bare, reading, served: { url, pid: service.pid } };
      type Side = keyof typeof targets;
      const order = Object.keys(targets) as Side[];
      // Warm every server up (JIT, caches) before measuring any.
      for (const side of order) await measure(targets[side], "2s");
      const rounds: Record<Side, Measured>[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const round = {} as Record<Side, Measured>;
        // Rotate the order so no server is always measured first or last.
        for (let j = 0; j < order.length; j++) {
          const side = order[(i + j) % order.length];
          round[side] = await measure(targets[side]);
        }
        rounds.push(round);
      }
      const ratios = rounds.map((r) => r.served.rps / r.bare.rps);
      const ratio = median(ratios);
      const readingRatio = median(rounds.map((r) => r.served.rps / r.reading.rps));
      const rps = (side: Side) => median(rounds.map((r) => r[side].rps)).toFixed(0);
      const p99 = (side: Side) => `${median(rounds.map((r) => r[side].p99)).toFixed(2)}ms`;
      const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
      const cpu = (side: Side) => {
        const values = rounds.map((r) => r[side].cpuUs);
        return values.every((v): v is number => v !== null) ? median(values) : null;
      };
      const cpuLine = order.every((side) => cpu(side) !== null)
        ? `; server CPU per request: service ${cpu("served")!.toFixed(1)} µs, bare ${
          cpu("bare")!.toFixed(1)
        } µs, bare reading ${cpu("reading")!.toFixed(1)} µs`
        : "";
      return {
        ratio,
        line:
          `trust.json: service ${rps("served")} req/s (p99 ${p99("served")}), bare Deno.serve ${
            rps("bare")
          } req/s (p99 ${p99("bare")}), ratio ${
            ratio.toFixed(2)
          } (rounds ${spread}; target >= ${TARGET}${
            Number(ratio.toFixed(2)) < TARGET ? ", BELOW TARGET" : ""
          }; ${bytes.length} bytes${
            ACCEPT_ENCODING
              ? ` (Accept-Encoding: ${ACCEPT_ENCODING}; ${
                headers["content-encoding"] ?? "identity"
              })`
              : ""
          }, ${ROUNDS} rotating rounds of wrk -t2 -c${CONNECTIONS} -d${DURATION}); ` +
          `bare reading URL and If-None-Match ${rps("reading")} req/s, service/that ${
            readingRatio.toFixed(2)
          }${cpuLine}`,
      };
    } finally {
      await Promise.all([bare.close(), reading.close()]);
    }
  } finally {
    await service.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log((await benchTrustJson()).line);
