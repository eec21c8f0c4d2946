/**
 * The latest trust page, GET /trust/{slug}.html, with its live block (updates, subprocessors,
 * documents), served from the bytes the render job stored (src/edge), against the same
 * version's immutable page, GET /trust/{slug}/versions/1/index.html, served from the artifact
 * cache: both from the same service process, loaded by wrk in the same run, in alternating
 * rounds. The ratio of throughputs is what serving a latest page costs over a versioned one.
 */
import { median, startBenchService } from "./_harness.ts";
import { measure } from "./trust_json.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const TARGET = 0.95;

/** Gives the project an organization with subprocessors and the project three updates. */
async function liveContent(service: Awaited<ReturnType<typeof startBenchService>>) {
  const headers = {
    authorization: `Bearer ${service.humanToken}`,
    "content-type": "application/json",
  };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${await res.text()}`);
    return await res.json();
  };
  const { project } = await call("GET", `/projects/${service.projectId}`);
  for (let i = 0; i < 8; i++) {
    await call("POST", `/organizations/${project.organizationId}/subprocessors`, {
      name: `Vendor ${i}`,
      purpose: "Hosting and email delivery",
      location: "European Union",
      website: `https://vendor${i}.example`,
    });
  }
  for (const kind of ["incident", "advisory", "change"]) {
    await call("POST", `/projects/${service.projectId}/updates`, {
      kind,
      title: `A ${kind} worth reading`,
      body: "Some **Markdown** with a [link](https://example.com) and a list:\n\n- one\n- two\n",
    });
  }
  await call("POST", `/projects/${service.projectId}/publish`);
  // The render jobs those changes staged run on the service's own worker: wait for them.
  for (let i = 0; i < 100; i++) {
    const ready = await (await fetch(`${service.baseUrl}/health/ready`)).json();
    if (ready.oldestDueSeconds === null) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("The render jobs did not run within 10 s");
}

export async function benchTrustPage(): Promise<{ ratio: number; line: string }> {
  const service = await startBenchService();
  try {
    await liveContent(service);
    const base = `${service.baseUrl.replace("localhost", "127.0.0.1")}/trust/${service.slug}`;
    const targets = {
      live: { url: `${base}.html`, pid: service.pid },
      published: { url: `${base}/versions/1/index.html`, pid: service.pid },
    };
    const page = await (await fetch(targets.live.url)).text();
    if (!page.includes("live-updates") && !page.includes("Updates")) {
      throw new Error("The latest page shows no live block");
    }
    type Side = keyof typeof targets;
    const order = Object.keys(targets) as Side[];
    for (const side of order) await measure(targets[side], "2s");
    const rounds: Record<Side, number>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const round = {} as Record<Side, number>;
      for (let j = 0; j < order.length; j++) {
        const side = order[(i + j) % order.length];
        round[side] = (await measure(targets[side])).rps;
      }
      rounds.push(round);
    }
    const ratios = rounds.map((r) => r.live / r.published);
    const ratio = median(ratios);
    const rps = (side: Side) => median(rounds.map((r) => r[side])).toFixed(0);
    return {
      ratio,
      line: `trust page: latest from stored bytes ${rps("live")} req/s, published version ${
        rps("published")
      } req/s, ratio ${ratio.toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${
        Math.max(...ratios).toFixed(2)
      }; target >= ${TARGET}${
        Number(ratio.toFixed(2)) < TARGET ? ", BELOW TARGET" : ""
      }; ${page.length} characters, 3 updates, 8 subprocessors)`,
    };
  } finally {
    await service.close();
  }
}

if (import.meta.main) console.log((await benchTrustPage()).line);
