/**
 * The Hono environment shared by every sub-app: the services a handler may
 * use, and what middleware attached to the request.
 */
import type { KvPersistence } from "../store/kv_persistence.ts";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AccessTokenVerifier } from "../auth/human.ts";
import type { SigningKey } from "../auth/keys.ts";
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { Scheduler } from "../live/scheduler.ts";
import type { JobWorker } from "../live/worker.ts";
import type { Mailer } from "../mail/mod.ts";
import type { EventBus } from "../push/events.ts";
import type { WebhookDeliveryOptions } from "../push/webhook_delivery.ts";
import type { HostResolver } from "../push/webhook_target.ts";
import type { PublishJob } from "../domain/publish.ts";
import type { Project } from "../domain/workspace.ts";
import type { TxtResolver } from "../publish/dns.ts";
import type { Collector } from "../domain/collector.ts";
import type { Publication } from "../domain/publication.ts";
import type { ArtifactCache } from "../serve/artifacts.ts";
import type { User } from "../domain/workspace.ts";
import type { AccessToken } from "../domain/access_tokens.ts";
import type { Clock } from "../lib/clock.ts";
import type { Limiter, LimiterOptions } from "../lib/limiter.ts";
import type { Logger } from "../lib/log.ts";
import { validationHook } from "./errors.ts";
import type { Memo } from "./memo.ts";
import type { Edge } from "../edge/mod.ts";

/** Everything with I/O, passed in so tests control storage and time. */
export interface AppDeps {
  config: Config;
  kv: Deno.Kv;
  blobs: BlobStore;
  clock: Clock;
  log: Logger;
  /** Used for JWKS, discovery and userinfo requests to an external IdP. */
  fetch?: typeof fetch;
  /** TXT lookups for custom-domain verification (default: DNS_NAMESERVER or the system's). */
  resolver?: TxtResolver;
  /** Outgoing email (default: from SMTP_URL, or one that says it is not configured). */
  mailer?: Mailer;
  /** Address lookups of webhook hosts (default: DNS_NAMESERVER or the system's resolver). */
  hostResolver?: HostResolver;
  /** Webhook retry schedule and timeout (default: DEFAULT_DELIVERY_OPTIONS). */
  webhookDelivery?: Partial<WebhookDeliveryOptions>;
  /** Limits of PDF stamping and page counting per instance (default: STAMPING_LIMITS). */
  stampingLimits?: Partial<LimiterOptions>;
  /** Whether the KV outlives the isolate (Deno Deploy; default: not checked). */
  storage?: KvPersistence;
}

/** Called after new evidence, signals or a heartbeat of a project. */
export type ActivityListener = (projectId: string) => Promise<void>;

/** Services derived from the deps once, when the app is created. */
export interface Services extends AppDeps {
  verifier: AccessTokenVerifier;
  keys: { tokens: SigningKey; publications: SigningKey; log: SigningKey; webhooks: SigningKey };
  /** The evaluation layer's hook for new activity (schedules a recompute). */
  notifyActivity: ActivityListener;
  /** Live re-evaluation: recompute now and schedule. */
  scheduler: Scheduler;
  /** The job worker; each job kind's owner registers its handler. */
  jobs: JobWorker;
  /** Trust events (written with the change they report) handed to the push channels. */
  events: EventBus;
  mailer: Mailer;
  resolver: TxtResolver;
  hostResolver: HostResolver;
  /** Published artifact bytes by key (immutable), bounded in size. */
  artifacts: ArtifactCache;
  /** What routes load or generate once and keep (static files, generated documents). */
  memo: Memo;
  /** Bounds the PDF work (stamping, page counting) this instance does at once. */
  stamping: Limiter;
  /** Stored public pages and the edge's purge (src/edge). */
  edge: Edge;
  /** Publishes the next version of a project (DESIGN.md §9). */
  publish(project: Project): Promise<{ job: PublishJob; publication: Publication }>;
}

export interface AppEnv {
  Variables: {
    services: Services;
    user: User;
    collector: Collector;
    /** The personal access token the request came with (src/http/auth.ts), if any. */
    accessToken?: AccessToken;
  };
}

/** A sub-app whose validation failures answer the API's 400 envelope. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
