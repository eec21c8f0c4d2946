/**
 * Starts the real application on 127.0.0.1 (ephemeral port) for end-to-end
 * and browser tests: the same createApp main.ts serves, on an in-memory KV
 * unless a path is given, with the configuration built from `env`.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApp, createServices } from "../../src/app.ts";
import { loadSigningKey } from "../../src/auth/keys.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import type { BlobStore } from "../../src/blobs/mod.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { AppDeps, AppEnv, Services } from "../../src/http/env.ts";
import { type Clock, systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { mintAccessToken } from "./tokens.ts";

export interface TestServer {
  baseUrl: string;
  port: number;
  config: Config;
  kv: Deno.Kv;
  app: OpenAPIHono<AppEnv>;
  /** The services the app runs on (its job worker, event bus, scheduler). */
  services: Services;
  log: ReturnType<typeof memoryLogger>;
  /** A valid built-in access token for `sub` (email `<sub>@example.com`). */
  tokenFor(sub: string): Promise<string>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  blobs?: (kv: Deno.Kv) => BlobStore;
  kv?: Deno.Kv;
  fetch?: typeof fetch;
  /** Run the job worker's loop (recomputes, events, deliveries), as the service does. Default true. */
  worker?: boolean;
  /** Webhook retry schedule and timeout (tests shorten them). */
  webhookDelivery?: AppDeps["webhookDelivery"];
  /** Whether the KV outlives the isolate (Deno Deploy's check; default: not checked). */
  storage?: AppDeps["storage"];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  let handler: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req, info) => handler(req, info),
  );
  const port = server.addr.port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const kv = options.kv ?? await Deno.openKv(":memory:");
  try {
    const config = loadConfig({ BASE_URL: baseUrl, KV_PATH: ":memory:", ...options.env });
    const log = memoryLogger();
    const clock = options.clock ?? systemClock;
    const deps = {
      config,
      kv,
      blobs: options.blobs?.(kv) ?? createKvBlobStore(kv, { now: () => clock.now().getTime() }),
      clock,
      log,
      fetch: options.fetch,
      webhookDelivery: options.webhookDelivery,
      storage: options.storage,
    };
    const services = await createServices(deps);
    const worker = options.worker ?? true;
    const app = await createApp(deps, { worker, services });
    handler = (req, info) => app.fetch(req, info);
    const tokenKey = await loadSigningKey(kv, "tokens");
    const tokenFor = (sub: string) =>
      mintAccessToken(kv, {
        key: tokenKey,
        config,
        now: (options.clock ?? systemClock).now(),
        ttlSeconds: 3600,
      }, { sub, email: `${sub}@example.com`, name: sub });
    const close = async () => {
      await server.shutdown();
      // Jobs under way finish on an open KV; then it closes (unless the caller owns it).
      await services.jobs.stop(() => options.kv || kv.close());
    };
    return {
      baseUrl,
      port,
      config,
      kv,
      app,
      services,
      log,
      tokenFor,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await server.shutdown();
    if (!options.kv) kv.close();
    throw error;
  }
}

/** A JSON call to a running service with a bearer token: its status and parsed body. */
export type JsonApi = (
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
) => Promise<{ status: number; json: any }>;

/** JSON calls to `baseUrl` as the holder of `token`. */
export function jsonApi(baseUrl: string, token: string): JsonApi {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
}

/** Bootstraps the "Acme" workspace with the public project `acme`; its project id. */
export async function bootstrapAcme(api: JsonApi): Promise<string> {
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "Acme Cloud",
    projectSlug: "acme",
    projectVisibility: "public",
  });
  if (boot.status !== 201) throw new Error(`bootstrap failed: ${JSON.stringify(boot.json)}`);
  return boot.json.project.id;
}
