/**
 * createApp(deps): the whole HTTP application, with every dependency that
 * does I/O passed in so tests build it on an in-memory KV with a fake clock.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { createBuiltinVerifier, createOidcVerifier } from "./auth/human.ts";
import { registerSignInLinks } from "./auth/builtin/sign_in_link.ts";
import { loadSigningKey } from "./auth/keys.ts";
import { readBody } from "./http/body.ts";
import { compressPublicAnswers } from "./http/compression.ts";
import { isDocumentUploadPath } from "./serve/documents.ts";
import { MAX_DOCUMENT_BYTES } from "./domain/documents.ts";
import { MAX_QUESTIONNAIRE_UPLOAD_BYTES } from "./domain/questionnaires.ts";
import type { AppDeps, AppEnv, Services } from "./http/env.ts";
import { handleError, validationHook } from "./http/errors.ts";
import { mountRoutes } from "./http/mount.ts";
import { countPageViews } from "./http/page_views.ts";
import { recordPublicStatus } from "./http/public_status.ts";
import { notFoundHandler } from "./http/not_found.ts";
import { hostRouting, withParseableUrl } from "./http/host_routing.ts";
import { publicCors } from "./http/cors.ts";
import { loadStaticFiles, serveStatic, staticFile } from "./http/static_files.ts";
import { DESIGN_TOKENS_CSS } from "./lib/design_tokens.ts";
import { autoPublishAfterRecompute } from "./live/auto_publish.ts";
import { createScheduler } from "./live/scheduler.ts";
import { createJobWorker } from "./live/worker.ts";
import { createMailer } from "./mail/mod.ts";
import { registerEmail } from "./push/email.ts";
import { registerOwnerMail } from "./push/owner_mail.ts";
import { createEventBus } from "./push/events.ts";
import { registerWebhooks } from "./push/webhooks.ts";
import { DEFAULT_DELIVERY_OPTIONS } from "./push/webhook_delivery.ts";
import { createHostResolver } from "./push/webhook_target.ts";
import { rememberPublicKey } from "./store/signing_keys.ts";
import { createEdge } from "./edge/mod.ts";
import { createStoredPages } from "./http/stored_pages.ts";
import { goneTenants } from "./http/gone.ts";
import { cacheSafeErrors } from "./http/error_caching.ts";
import { dropUnscopedStamps } from "./store/documents.ts";
import { trackPublicWrites } from "./store/public_writes.ts";
import { createArtifactCache } from "./serve/artifacts.ts";
import { createMemo } from "./http/memo.ts";
import { createLimiter } from "./lib/limiter.ts";
import { STAMPING_LIMITS } from "./serve/watermark.ts";
import type { Project } from "./domain/workspace.ts";
import { createTxtResolver } from "./publish/dns.ts";
import { publishIfChanged, publishProject } from "./publish/publish.ts";
import { registerCertificationJobs } from "./publish/certification_jobs.ts";
import { registerBlobCollector } from "./lifecycle/blob_gc.ts";
import { collectAfterDeletion, registerDeletion } from "./lifecycle/deletion.ts";
import { registerPruning, schedulePruning } from "./lifecycle/prune_job.ts";
import { describeApi } from "./http/api_document.ts";
import { type Config, ConfigError } from "./config.ts";

/** Body limit for every route that does not take evidence. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

const STATIC_DIR = new URL("../static/", import.meta.url);

/**
 * Questionnaire uploads: POST /organizations/{id}/questionnaires, and answered questionnaires
 * imported into the knowledge base (…/answer-imports and its preview).
 */
const QUESTIONNAIRE_UPLOAD =
  /^\/organizations\/[^/]+\/(questionnaires|answer-imports|answer-imports\/preview)$/;

/** The largest body a path accepts: evidence, document and questionnaire uploads have their own. */
function bodyLimit(config: Config): (path: string) => number {
  return (path) =>
    path.startsWith("/ingest/")
      ? config.maxEvidenceBytes
      : isDocumentUploadPath(path)
      ? MAX_DOCUMENT_BYTES
      : QUESTIONNAIRE_UPLOAD.test(path)
      ? MAX_QUESTIONNAIRE_UPLOAD_BYTES
      : DEFAULT_BODY_LIMIT;
}

/** The service's signing keys, loaded (or generated once) from KV or the configuration. */
async function loadKeys(deps: AppDeps): Promise<Services["keys"]> {
  const { config, kv, clock } = deps;
  const keys = {
    tokens: await loadSigningKey(kv, "tokens"),
    publications: await loadSigningKey(kv, "publications", { configured: config.signingKey }),
    log: await loadSigningKey(kv, "log", {
      configured: config.logSigningKey,
      variable: "LOG_SIGNING_KEY",
    }),
    webhooks: await loadSigningKey(kv, "webhooks"),
  };
  // A rotated publication key stays in the JWKS, so versions it signed keep verifying.
  await rememberPublicKey(kv, "publications", {
    jwk: keys.publications.publicJwk,
    now: clock.now(),
  });
  return keys;
}

/** The verifier of human access tokens: the built-in provider's, or the external IdP's. */
function createVerifier(deps: AppDeps, keys: Services["keys"]) {
  const { auth } = deps.config;
  return auth.mode === "builtin"
    ? createBuiltinVerifier({
      issuer: auth.issuer,
      audience: auth.audience,
      key: keys.tokens,
      clock: deps.clock,
      kv: deps.kv,
    })
    : createOidcVerifier({
      issuer: auth.issuer,
      audience: auth.audience,
      jwksUrl: auth.jwksUrl,
      clock: deps.clock,
      fetch: deps.fetch,
    });
}

/** Builds the services shared by every request (keys, token verifier, jobs, push). */
export async function createServices(given: AppDeps): Promise<Services> {
  // Every write of the service goes through the one commit path that keeps the stored public
  // pages' generations with the data (src/store/public_writes.ts).
  const deps = { ...given, kv: trackPublicWrites(given.kv, given.clock) };
  const { config, kv } = deps;
  try {
    await (await import("./sigstore/load.ts")).checkTrustedRoot(config.sigstoreTrustedRoot);
  } catch (error) {
    throw new ConfigError("SIGSTORE_TRUSTED_ROOT", (error as Error).message);
  }
  const keys = await loadKeys(deps);
  await dropUnscopedStamps(kv, deps.clock.now());
  const verifier = createVerifier(deps, keys);
  const jobs = createJobWorker(deps);
  const scheduler = createScheduler({ ...deps, jobs });
  const events = createEventBus({ log: deps.log, jobs });
  const mailer = deps.mailer ?? createMailer(config.mail);
  registerEmail({ ...deps, mailer, jobs, events });
  registerOwnerMail({ ...deps, mailer, jobs });
  registerSignInLinks({ ...deps, mailer, jobs });
  const publishDeps = { ...deps, signingKey: keys.publications, logKey: keys.log };
  const publish = (project: Project) => publishProject(publishDeps, project);
  const publishChanged = (project: Project) => publishIfChanged(publishDeps, project);
  const autoPublish = autoPublishAfterRecompute({ kv, publishIfChanged: publishChanged });
  scheduler.onRecomputed(async (project, result) => {
    await autoPublish(project, result);
    // Every project that is recomputed (new evidence, a due check) is pruned daily.
    await schedulePruning(kv, project, { now: deps.clock.now() });
  });
  registerCertificationJobs({ kv, clock: deps.clock, jobs, publishIfChanged: publishChanged });
  registerBlobCollector({ ...deps, jobs });
  registerPruning({ ...deps, jobs });
  const hostResolver = deps.hostResolver ?? createHostResolver(config.dnsNameserver);
  registerWebhooks({
    ...deps,
    events,
    jobs,
    key: keys.webhooks,
    resolver: hostResolver,
    allowPrivate: config.webhookAllowPrivate,
    options: { ...DEFAULT_DELIVERY_OPTIONS, ...deps.webhookDelivery },
  });
  const edge = createEdge({ ...deps, jobs });
  registerDeletion({
    ...deps,
    jobs,
    purge: (tags) => edge.purger.purge(tags),
    collectBlobs: (startedAfter) => collectAfterDeletion(deps, startedAfter),
  });
  return {
    ...deps,
    keys,
    verifier,
    scheduler,
    jobs,
    events,
    mailer,
    notifyActivity: scheduler.notify,
    resolver: deps.resolver ?? createTxtResolver(config.dnsNameserver),
    hostResolver,
    artifacts: createArtifactCache(),
    edge,
    memo: createMemo(),
    stamping: createLimiter({ ...STAMPING_LIMITS, ...deps.stampingLimits }),
    publish,
  };
}

/**
 * Builds the app. With `worker`, it also runs the local job loop (scheduled recomputes,
 * trust events, deliveries) until `services.jobs.stop`; tests that control time leave it
 * off. `services` reuses services already built (tests hold on to them).
 */
export async function createApp(
  deps: AppDeps,
  options: { worker?: boolean; services?: Services } = {},
): Promise<OpenAPIHono<AppEnv>> {
  const services = options.services ?? await createServices(deps);
  const { config, log } = services;
  const staticFiles = await loadStaticFiles(STATIC_DIR);
  // The design tokens live in code, because the trust pages inline them too.
  staticFiles.set("tokens.css", staticFile("tokens.css", DESIGN_TOKENS_CSS));
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use("*", async (c, next) => {
    c.set("services", services);
    await next();
    c.header("X-Content-Type-Options", "nosniff");
  });
  app.use("*", recordPublicStatus());
  app.use("*", countPageViews());
  app.use("*", cacheSafeErrors());
  app.use("*", publicCors(config));
  app.use("*", hostRouting(config, (request, env) => app.fetch(request, env)));
  const stored = createStoredPages(services);
  app.use("*", stored.middleware);
  app.use("*", goneTenants());
  app.use("*", compressPublicAnswers());
  app.use("*", readBody(bodyLimit(config), { timeoutMs: config.bodyTimeoutMs }));

  mountRoutes(app, config);
  describeApi(app, services);

  app.get(
    "/static/*",
    (c) => serveStatic(c, staticFiles, c.req.path.slice("/static/".length)) ?? c.notFound(),
  );
  app.get("/", (c) => c.redirect("/dashboard/", 302));

  app.notFound(notFoundHandler(app, { log, baseUrl: config.baseUrl }));
  app.onError((error, c) =>
    handleError(error, log, { path: c.req.path, request: c.req.raw, baseUrl: config.baseUrl })
  );

  // HEAD is answered as GET: the HTTP server sends the headers, Content-Length included, and
  // drops the body (RFC 9110 §9.3.2); Hono's own HEAD handling empties the body, which would
  // announce a length of 0. Requests whose Host makes their URL unparseable are routed on the
  // service's own origin.
  const route = app.fetch;
  const origin = new URL(config.baseUrl).origin;
  app.fetch = (request, env, ctx) => {
    // The hot public reads are answered from memory before routing (src/http/stored_pages.ts).
    const fast = stored.fastPath(request, env);
    if (fast) return fast;
    const parseable = withParseableUrl(request, origin);
    return route(
      parseable.method === "HEAD" ? new Request(parseable, { method: "GET" }) : parseable,
      env,
      ctx,
    );
  };
  services.edge.attach((request, env) => app.fetch(request, env));
  // The worker starts once the app can render: a render job claimed before `attach` (while the
  // static files load) would fail and wait out its backoff, leaving the pages to the next run.
  if (options.worker) services.jobs.start();
  return app;
}
