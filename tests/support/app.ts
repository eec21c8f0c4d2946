/**
 * An in-process app on an in-memory KV with a fake clock, and access tokens
 * minted with the built-in provider's own key, for HTTP tests through
 * `app.request` (no network).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApp, createServices } from "../../src/app.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import type { BlobStore } from "../../src/blobs/mod.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { AppDeps, AppEnv, Services } from "../../src/http/env.ts";
import type { Mailer } from "../../src/mail/mod.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { mintAccessToken } from "./tokens.ts";

export const TEST_BASE_URL = "http://trust.test";

export interface TestApp {
  app: OpenAPIHono<AppEnv>;
  kv: Deno.Kv;
  config: Config;
  services: Services;
  clock: ReturnType<typeof fakeClock>;
  log: ReturnType<typeof memoryLogger>;
  /** A valid human access token for a subject (the user is created on first use). */
  tokenFor(sub: string, claims?: { email?: string; name?: string }): Promise<string>;
  /** `fetch`-like call with JSON body and bearer token conveniences. */
  call(
    method: string,
    path: string,
    options?: { token?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> },
  ): Promise<Response>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function createTestApp(
  options: {
    env?: Record<string, string>;
    blobs?: (kv: Deno.Kv) => BlobStore;
    mailer?: Mailer;
    /** Run the job worker's loop (trust events, deliveries, recomputes) until disposed. */
    worker?: boolean;
    /** Webhook retry schedule and timeout (tests shorten them). */
    webhookDelivery?: AppDeps["webhookDelivery"];
    /** Limits of PDF stamping and page counting (tests narrow them). */
    stampingLimits?: AppDeps["stampingLimits"];
    /** A KV file to build in instead of an in-memory KV (benchmarks prepare data with it). */
    kvPath?: string;
    /** Where the fake clock stands at first. */
    now?: Date;
    /** Wraps the KV before the service does (tests audit what the service sends). */
    wrapKv?: (kv: Deno.Kv) => Deno.Kv;
  } = {},
): Promise<TestApp> {
  const opened = await Deno.openKv(options.kvPath ?? ":memory:");
  const kv = options.wrapKv?.(opened) ?? opened;
  const clock = fakeClock(options.now ?? new Date("2026-11-01T12:00:00Z"));
  const log = memoryLogger();
  const config = loadConfig({ BASE_URL: TEST_BASE_URL, KV_PATH: ":memory:", ...options.env });
  const deps = {
    config,
    kv,
    blobs: options.blobs?.(kv) ?? createKvBlobStore(kv, { now: () => clock.now().getTime() }),
    clock,
    log,
    mailer: options.mailer,
    webhookDelivery: options.webhookDelivery,
    stampingLimits: options.stampingLimits,
  };
  const services = await createServices(deps);
  const app = await createApp(deps, { services });
  if (options.worker) services.jobs.start();
  const tokenFor = (sub: string, claims: { email?: string; name?: string } = {}) =>
    mintAccessToken(kv, { key: services.keys.tokens, config, now: clock.now(), ttlSeconds: 900 }, {
      sub,
      email: claims.email ?? `${sub}@example.com`,
      name: claims.name ?? sub,
    });
  const call: TestApp["call"] = (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] ??= "application/json";
    }
    return Promise.resolve(app.request(`${TEST_BASE_URL}${path}`, { method, headers, body }));
  };
  return {
    app,
    // The service's own KV: writes made here take the service's commit path, as its own do.
    kv: services.kv,
    config,
    services,
    clock,
    log,
    tokenFor,
    call,
    async [Symbol.asyncDispose]() {
      // Jobs under way finish on an open KV; then it closes.
      await services.jobs.stop(() => kv.close());
    },
  };
}

/** Every KV entry, to prove a refused request changed nothing. */
export async function snapshotKv(kv: Deno.Kv): Promise<string> {
  const entries: string[] = [];
  for await (const entry of kv.list({ prefix: [] })) {
    if (entry.key[0] === "login_failures") continue;
    entries.push(`${JSON.stringify(entry.key)}@${entry.versionstamp}`);
  }
  return entries.join("\n");
}
