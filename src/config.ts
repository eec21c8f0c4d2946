/**
 * Configuration from the environment (DESIGN.md §4). This is the only module
 * that reads `Deno.env`; everything else receives a `Config`.
 */
import { z } from "zod";
import { type IpRange, parseIpRange } from "./lib/ip.ts";

const Url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/(?<!\/)\/+$/, ""));
const Bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const HostPort = z.string().regex(/^[^:\s]+:\d{1,5}$/, "Expected host:port");

const Variables = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOSTNAME: z.string().min(1).default("127.0.0.1"),
  BASE_URL: Url.optional(),
  TRUST_PAGE_BASE: Url.optional(),
  KV_PATH: z.string().min(1).optional(),
  BLOB_STORE: z.enum(["kv", "s3"]).default("kv"),
  S3_ENDPOINT: Url.optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: Bool.default(false),
  AUTH_MODE: z.enum(["builtin", "oidc"]).default("builtin"),
  AUTH_ISSUER: Url.optional(),
  AUTH_AUDIENCE: z.string().min(1).optional(),
  AUTH_JWKS_URL: Url.optional(),
  AUTH_URL: Url.optional(),
  AUTH_CLIENT_ID: z.string().min(1).default("dashboard"),
  SIGNUP: z.enum(["first-run", "open", "invite"]).default("first-run"),
  SIGNING_KEY: z.string().min(1).optional(),
  LOG_SIGNING_KEY: z.string().min(1).optional(),
  DNS_NAMESERVER: HostPort.optional(),
  TRUSTED_PROXIES: z.string().optional(),
  BODY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  SIGSTORE_TRUSTED_ROOT: z.string().min(1).optional(),
  SMTP_URL: z.url({
    protocol: /^smtps?$/,
    error: "Expected smtp://[user:password@]host[:port] or smtps://…",
  }).optional(),
  SES_REGION: z.string().regex(
    /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/,
    "Expected an AWS region such as eu-west-1",
  ).optional(),
  SES_ACCESS_KEY_ID: z.string().regex(
    /^\w{16,128}$/,
    "Expected an AWS access key id (16 to 128 letters and digits)",
  ).optional(),
  SES_SECRET_ACCESS_KEY: z.string().regex(/^\S+$/, "Must be one word without spaces").optional(),
  SES_ENDPOINT: Url.optional(),
  SES_CONFIGURATION_SET: z.string().regex(
    /^[\w-]{1,64}$/,
    "Expected a configuration set name (up to 64 letters, digits, - and _)",
  ).optional(),
  MAIL_FROM: z.string().min(3).max(320).regex(/^[^\r\n]+$/, "Must be one line").optional(),
  WEBHOOK_ALLOW_PRIVATE: Bool.default(false),
  CDN_PURGE: z.enum(["deno", "xkey", "none"]).optional(),
  CDN_PURGE_URL: z.string().min(1).optional(),
  MAX_EVIDENCE_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(
    10 * 1024 * 1024,
  ),
  QUESTIONNAIRE_STORAGE_BYTES: z.coerce.number().int().min(64 * 1024).max(2 ** 40).default(
    256 * 1024 * 1024,
  ),
  EVIDENCE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  EVIDENCE_RETENTION_RECORDS: z.coerce.number().int().min(1).max(100_000).default(100),
  KV_PERSISTENCE: z.enum(["assigned"], {
    error: 'Expected "assigned" (a Deno KV database is assigned to this app on Deno Deploy)',
  }).optional(),
  // Set by Deno Deploy at runtime in every context (docs/deploy.md): never set by operators.
  DENO_DEPLOY: z.string().optional(),
  DENO_DEPLOYMENT_ID: z.string().optional(),
  DENO_TIMELINE: z.string().optional(),
  DENO_DEPLOY_APP_SLUG: z.string().optional(),
  DENO_DEPLOY_ORG_SLUG: z.string().optional(),
});

/**
 * What each variable sets, and its default in words where the schema holds none to show (one
 * computed at start). README's configuration table is generated from the schema carrying them
 * (`deno task docs`; tests/docs_test.ts fails when it differs); details in docs/configuration.md.
 */
const WORDS: { [K in keyof typeof Variables.shape]: readonly [string, string?] } = {
  PORT: ["Listen port; Deploy mode reads `DENO_SERVE_ADDRESS`"],
  HOSTNAME: ["Listen address; ignored in Deploy mode"],
  BASE_URL: ["Public base URL; on Deploy, its timeline's URL", "`http://localhost:$PORT`"],
  TRUST_PAGE_BASE: ["Host of trust pages; hosted subdomains are made under it", "`BASE_URL`"],
  KV_PATH: ["File, `:memory:` or KV Connect URL; unset on Deploy", "`./data/kv.sqlite3`"],
  BLOB_STORE: ["`kv` (chunks in the same KV) or `s3` (the `S3_*` below)"],
  S3_ENDPOINT: ["S3 API base URL (required with `BLOB_STORE=s3`)"],
  S3_BUCKET: ["S3 bucket (required with `s3`)"],
  S3_REGION: ["S3 region"],
  S3_ACCESS_KEY_ID: ["S3 access key id (required with `s3`)"],
  S3_SECRET_ACCESS_KEY: ["S3 secret key (required with `s3`)"],
  S3_FORCE_PATH_STYLE: ["`<endpoint>/<bucket>/<key>` URLs, not subdomains"],
  AUTH_MODE: ["`builtin` (its own identity provider) or `oidc`"],
  AUTH_ISSUER: ["External IdP's issuer; required in `oidc` mode"],
  AUTH_AUDIENCE: ["Audience tokens must name; required in `oidc` mode", "`BASE_URL` (builtin)"],
  AUTH_JWKS_URL: ["JWKS of the external IdP", "issuer's discovery"],
  AUTH_URL: ["`{auth_url}` announced in metadata", "issuer or `BASE_URL`"],
  AUTH_CLIENT_ID: ["Public OAuth client the dashboard uses (PKCE)"],
  SIGNUP: ["Builtin: `first-run` (a setup link), `open` or `invite`"],
  SIGNING_KEY: ["Ed25519 private JWK that signs publications", "generated, in KV"],
  LOG_SIGNING_KEY: ["Ed25519 private JWK that signs log checkpoints", "generated, in KV"],
  DNS_NAMESERVER: ["`host:port` for TXT checks and webhook hosts", "system resolver"],
  TRUSTED_PROXIES: ["Proxies (IPs, CIDRs) whose `Forwarded` names the client"],
  BODY_TIMEOUT_SECONDS: ["Longest a request body may take (then 408)"],
  SIGSTORE_TRUSTED_ROOT: [
    "Path of the `trusted_root.json` for signed evidence",
    "public-good root",
  ],
  SMTP_URL: ["`smtp://[user:password@]host[:port]` or `smtps://…`", "— (email off)"],
  SES_REGION: ["Email through Amazon SES v2 in this region (not SMTP)", "— (SES off)"],
  SES_ACCESS_KEY_ID: ["IAM key allowed `ses:SendEmail` (required with SES)"],
  SES_SECRET_ACCESS_KEY: ["Its secret (required with SES; never logged)"],
  SES_ENDPOINT: ["Base URL of the SES v2 API", "the region's"],
  SES_CONFIGURATION_SET: ["SES configuration set every email is sent with"],
  MAIL_FROM: ["From header of every email", "`no-reply@` its host"],
  WEBHOOK_ALLOW_PRIVATE: ["Webhooks may reach loopback and private addresses"],
  CDN_PURGE: ["How changed pages leave the cache: `deno`, `xkey`, `none`", "by platform"],
  CDN_PURGE_URL: ["Varnish URLs to purge, comma-separated (with `xkey`)"],
  MAX_EVIDENCE_BYTES: ["Largest accepted evidence request body"],
  QUESTIONNAIRE_STORAGE_BYTES: ["Bytes an organization's questionnaires may store"],
  EVIDENCE_RETENTION_DAYS: ["Evidence kept while observed within these days…"],
  EVIDENCE_RETENTION_RECORDS: ["…or while among this many newest of its type"],
  KV_PERSISTENCE: ["`assigned`: Deploy has a KV database; writes open at once", "— (proven)"],
  DENO_DEPLOY: ["Set by Deno Deploy (`true`), never by operators"],
  DENO_DEPLOYMENT_ID: ["Set by Deno Deploy: the deployment's id"],
  DENO_TIMELINE: ["Set by Deno Deploy: production, a Git branch, a preview"],
  DENO_DEPLOY_APP_SLUG: ["Set by Deno Deploy: the app's slug"],
  DENO_DEPLOY_ORG_SLUG: ["Set by Deno Deploy: the organization's slug"],
};

/** The environment's schema, each variable carrying its words as metadata (`description`). */
export const Env = z.object(
  Object.fromEntries(
    Object.entries(Variables.shape).map(([name, schema]) => {
      const [description, defaultText] = WORDS[name as keyof typeof WORDS];
      return [name, schema.meta(defaultText ? { description, defaultText } : { description })];
    }),
  ),
) as unknown as typeof Variables;

export interface S3Config {
  /** Base URL of the S3 API, e.g. `https://s3.eu-west-1.amazonaws.com` or a MinIO URL. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `true` for `<endpoint>/<bucket>/<key>` URLs, `false` for `<bucket>.<endpoint host>/<key>`. */
  forcePathStyle: boolean;
}

export interface Config {
  port: number;
  hostname: string;
  baseUrl: string;
  trustPageBase: string;
  /** Running on Deno Deploy, which then provides TLS for custom domains. */
  onDeploy: boolean;
  /**
   * Deno Deploy's runtime as its documentation describes it: `DENO_DEPLOY=true` together with
   * `DENO_DEPLOYMENT_ID` and `DENO_TIMELINE`, which Deploy sets in every runtime context. Only
   * then is Deploy's CDN (`cache.localhost`) there to purge; `DENO_DEPLOY=true` alone is not.
   */
  deployRuntime: { timeline: string; deploymentId: string } | null;
  /**
   * Where `baseUrl` came from: `BASE_URL`, the Deploy timeline's own `*.deno.net` URL
   * (`timeline`), or the local default.
   */
  baseUrlSource: "BASE_URL" | "timeline" | "default";
  /** A line for the start-up banner when `BASE_URL` was set but not used (Deploy previews). */
  baseUrlNote: string | null;
  /**
   * Whether the KV may be the per-isolate memory Deno Deploy gives an app with no database
   * assigned (`probe`: Deploy's default database, docs/deploy.md), and whether the operator
   * said a database is assigned (`KV_PERSISTENCE=assigned`).
   */
  kvPersistence: { probe: boolean; acknowledged: boolean };
  /** File path, `:memory:`, a KV Connect URL, or undefined for Deno Deploy's default database. */
  kvPath: string | undefined;
  blobStore: { kind: "kv" } | ({ kind: "s3" } & S3Config);
  auth: {
    mode: "builtin" | "oidc";
    issuer: string;
    audience: string;
    jwksUrl: string | undefined;
    authUrl: string;
    clientId: string;
  };
  signup: "first-run" | "open" | "invite";
  signingKey: string | undefined;
  /** Ed25519 private JWK (JSON) that signs the publication log's checkpoints. */
  logSigningKey: string | undefined;
  dnsNameserver: { host: string; port: number } | undefined;
  maxEvidenceBytes: number;
  /** Bytes an organization's questionnaires may store together (docs/questionnaires.md). */
  questionnaireStorageBytes: number;
  /**
   * The service's default evidence retention (docs/lifecycle.md): records are kept for `days`
   * or as the newest `recordsPerType` of their type, whichever keeps more; organizations and
   * projects may set their own.
   */
  evidenceRetention: { days: number; recordsPerType: number };
  /** Peers whose `Forwarded`/`X-Forwarded-For` name the client (empty: none is trusted). */
  trustedProxies: IpRange[];
  /** Longest time a request body may take to arrive, in milliseconds. */
  bodyTimeoutMs: number;
  /**
   * The Sigstore trusted root document read from `SIGSTORE_TRUSTED_ROOT`, or null for the
   * shipped public-good root. Start-up checks that it is a usable trusted root.
   */
  sigstoreTrustedRoot: Record<string, unknown> | null;
  /** Outgoing email (notifications, access links); null without SMTP_URL or SES_REGION. */
  mail: MailConfig | null;
  /**
   * Webhook endpoints may resolve to loopback and private addresses (development and
   * tests). Off by default: such endpoints are refused, so a webhook cannot reach the
   * service's own network.
   */
  webhookAllowPrivate: boolean;
  /** The cache in front of the service (CDN or Varnish) and how it is purged (src/edge). */
  edge: EdgeConfig;
}

/**
 * How changed public pages leave the cache in front: `deno` through Deno Deploy's CDN API
 * (`cache.localhost`), `xkey` by `PURGE` requests to Varnish with the xkey module at each of
 * `purgeUrls`, `none` where no cache keeps pages longer than the specification's five minutes.
 */
export interface EdgeConfig {
  purge: "deno" | "xkey" | "none";
  purgeUrls: string[];
}

/** How email leaves: over SMTP (`SMTP_URL`) or through Amazon SES v2's HTTPS API (`SES_REGION`). */
export type MailConfig = SmtpMailConfig | SesMailConfig;

export interface SmtpMailConfig {
  transport: "smtp";
  /** `smtp://` (STARTTLS when offered) or `smtps://` (TLS), with credentials if any. A secret. */
  smtpUrl: string;
  /** The From header, e.g. `Trust <trust@example.com>`. */
  from: string;
}

export interface SesMailConfig {
  transport: "ses";
  ses: SesConfig;
  /** The From header; its address must be an identity SES has verified. */
  from: string;
}

/** Amazon SES v2 (`SendEmail` over HTTPS, signed with SigV4). */
export interface SesConfig {
  region: string;
  accessKeyId: string;
  /** A secret: never logged, printed or returned. */
  secretAccessKey: string;
  /** Base URL of the SES API (SES_ENDPOINT, default `https://email.<region>.amazonaws.com`). */
  endpoint: string;
  /** The SES configuration set every email is sent with (event publishing, IP pools), if any. */
  configurationSet: string | undefined;
}

/** A configuration problem, reported as one line naming the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid configuration: ${variable}: ${detail}`);
    this.name = "ConfigError";
  }
}

function required<T>(value: T | undefined, variable: string, why: string): T {
  if (value === undefined) throw new ConfigError(variable, `required ${why}`);
  return value;
}

type ParsedEnv = z.infer<typeof Env>;

function blobStoreConfig(e: ParsedEnv): Config["blobStore"] {
  if (e.BLOB_STORE !== "s3") return { kind: "kv" };
  const why = "when BLOB_STORE=s3";
  return {
    kind: "s3",
    endpoint: required(e.S3_ENDPOINT, "S3_ENDPOINT", why),
    bucket: required(e.S3_BUCKET, "S3_BUCKET", why),
    region: e.S3_REGION,
    accessKeyId: required(e.S3_ACCESS_KEY_ID, "S3_ACCESS_KEY_ID", why),
    secretAccessKey: required(e.S3_SECRET_ACCESS_KEY, "S3_SECRET_ACCESS_KEY", why),
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
  };
}

function authConfig(e: ParsedEnv, baseUrl: string): Config["auth"] {
  if (e.AUTH_MODE === "oidc") {
    const issuer = required(e.AUTH_ISSUER, "AUTH_ISSUER", "when AUTH_MODE=oidc");
    return {
      mode: "oidc",
      issuer,
      audience: required(e.AUTH_AUDIENCE, "AUTH_AUDIENCE", "when AUTH_MODE=oidc"),
      jwksUrl: e.AUTH_JWKS_URL,
      authUrl: e.AUTH_URL ?? issuer,
      clientId: e.AUTH_CLIENT_ID,
    };
  }
  return {
    mode: "builtin",
    issuer: baseUrl,
    audience: e.AUTH_AUDIENCE ?? baseUrl,
    jwksUrl: undefined,
    authUrl: e.AUTH_URL ?? baseUrl,
    clientId: e.AUTH_CLIENT_ID,
  };
}

/** `host:port` (already shaped by the schema) with the port in range. */
function hostPort(value: string, variable: string): { host: string; port: number } {
  const [host, port] = value.split(":");
  const portNumber = Number(port);
  if (portNumber < 1 || portNumber > 65535) {
    throw new ConfigError(variable, "port must be between 1 and 65535");
  }
  return { host, port: portNumber };
}

/** A comma-separated list of addresses or CIDR ranges. */
function ipRanges(value: string, variable: string): IpRange[] {
  try {
    return value.split(",").filter((s) => s.trim()).map(parseIpRange);
  } catch (error) {
    throw new ConfigError(variable, (error as Error).message);
  }
}

/**
 * Parses the environment into a `Config`. `onDeploy` selects Deno Deploy's
 * defaults (no listen address, the default KV database).
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  options: { onDeploy?: boolean } = {},
): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = Env.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue.path[0] ?? "environment"), issue.message);
  }
  const e = parsed.data;
  const onDeploy = options.onDeploy ?? false;
  const deployRuntime = e.DENO_DEPLOY === "true" && e.DENO_DEPLOYMENT_ID && e.DENO_TIMELINE
    ? { timeline: e.DENO_TIMELINE, deploymentId: e.DENO_DEPLOYMENT_ID }
    : null;
  const publicUrl = publicBaseUrl(e, onDeploy);
  const baseUrl = publicUrl.url;
  const kvPath = e.KV_PATH ?? (onDeploy ? undefined : "./data/kv.sqlite3");

  return {
    sigstoreTrustedRoot: e.SIGSTORE_TRUSTED_ROOT ? readTrustedRoot(e.SIGSTORE_TRUSTED_ROOT) : null,
    port: e.PORT,
    hostname: e.HOSTNAME,
    baseUrl,
    trustPageBase: e.TRUST_PAGE_BASE ?? baseUrl,
    onDeploy,
    deployRuntime,
    baseUrlSource: publicUrl.source,
    baseUrlNote: publicUrl.note,
    kvPersistence: {
      probe: onDeploy && kvPath === undefined,
      acknowledged: e.KV_PERSISTENCE === "assigned",
    },
    kvPath,
    blobStore: blobStoreConfig(e),
    auth: authConfig(e, baseUrl),
    signup: e.SIGNUP,
    signingKey: e.SIGNING_KEY,
    logSigningKey: e.LOG_SIGNING_KEY,
    dnsNameserver: e.DNS_NAMESERVER ? hostPort(e.DNS_NAMESERVER, "DNS_NAMESERVER") : undefined,
    maxEvidenceBytes: e.MAX_EVIDENCE_BYTES,
    questionnaireStorageBytes: e.QUESTIONNAIRE_STORAGE_BYTES,
    evidenceRetention: {
      days: e.EVIDENCE_RETENTION_DAYS,
      recordsPerType: e.EVIDENCE_RETENTION_RECORDS,
    },
    trustedProxies: ipRanges(e.TRUSTED_PROXIES ?? "", "TRUSTED_PROXIES"),
    bodyTimeoutMs: e.BODY_TIMEOUT_SECONDS * 1000,
    mail: mailConfig(e, baseUrl),
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    edge: edgeConfig(e, deployRuntime !== null),
  };
}

/** A DNS label as Deploy's `*.deno.net` names use them (lower-case letters, digits, `-`). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The URL Deno Deploy serves a timeline at (docs.deno.com/deploy/reference/timelines):
 * production `https://<app>.<org>.deno.net`, a Git branch `https://<app>--<branch>.<org>.deno.net`,
 * a revision's preview `https://<app>-<revision>.<org>.deno.net`. Null when a part is missing or
 * is not a DNS label (Deploy does not document how it spells other branch names).
 */
export function timelineUrl(
  timeline: string | undefined,
  app: string | undefined,
  org: string | undefined,
): string | null {
  if (!timeline || !app || !org || !LABEL.test(app) || !LABEL.test(org)) return null;
  if (timeline === "production") return `https://${app}.${org}.deno.net`;
  const branch = /^git-branch\/(.+)$/.exec(timeline)?.[1];
  if (branch !== undefined) {
    return LABEL.test(branch) ? `https://${app}--${branch}.${org}.deno.net` : null;
  }
  const revision = /^preview\/(.+)$/.exec(timeline)?.[1];
  if (revision !== undefined) {
    return LABEL.test(revision) ? `https://${app}-${revision}.${org}.deno.net` : null;
  }
  return null;
}

/**
 * The public base URL. Off Deploy: `BASE_URL`, else `http://localhost:$PORT`. On Deploy,
 * environment variables are set per context and every Git branch and preview shares the
 * Development one, so a `BASE_URL` there would be wrong for all but one of them: production uses
 * `BASE_URL` (its custom domain) or its own `*.deno.net` URL; a branch or preview uses its own
 * timeline URL (from `DENO_TIMELINE`, `DENO_DEPLOY_APP_SLUG`, `DENO_DEPLOY_ORG_SLUG`).
 */
function publicBaseUrl(
  e: ParsedEnv,
  onDeploy: boolean,
): { url: string; source: Config["baseUrlSource"]; note: string | null } {
  if (!onDeploy) {
    return e.BASE_URL
      ? { url: e.BASE_URL, source: "BASE_URL", note: null }
      : { url: `http://localhost:${e.PORT}`, source: "default", note: null };
  }
  const own = timelineUrl(e.DENO_TIMELINE, e.DENO_DEPLOY_APP_SLUG, e.DENO_DEPLOY_ORG_SLUG);
  const production = e.DENO_TIMELINE === undefined || e.DENO_TIMELINE === "production";
  if (e.BASE_URL && (production || own === null)) {
    return { url: e.BASE_URL, source: "BASE_URL", note: null };
  }
  if (own !== null) {
    const note = e.BASE_URL && e.BASE_URL !== own
      ? `Public URL: ${own}, this timeline's own (${e.DENO_TIMELINE}); BASE_URL=${e.BASE_URL} is left to production (the Development context is shared by every branch and preview)`
      : null;
    return { url: own, source: "timeline", note };
  }
  // On Deploy a default of localhost would end up in issuers, sign-in redirects and links.
  throw new ConfigError(
    "BASE_URL",
    "required on Deno Deploy: set it to the deployment's public URL (https://…); it is derived only where Deploy's DENO_TIMELINE, DENO_DEPLOY_APP_SLUG and DENO_DEPLOY_ORG_SLUG name a *.deno.net URL",
  );
}

/**
 * The purge driver: as set, else Deploy's CDN where Deploy's runtime is (`deployRuntime`, never
 * `DENO_DEPLOY` alone), Varnish when URLs are given, else none.
 */
function edgeConfig(e: ParsedEnv, deployRuntime: boolean): EdgeConfig {
  const purgeUrls = (e.CDN_PURGE_URL ?? "").split(",").map((url) => url.trim()).filter(Boolean);
  for (const url of purgeUrls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new ConfigError("CDN_PURGE_URL", `"${url.slice(0, 100)}" is not an http(s) URL`);
    }
  }
  const purge = e.CDN_PURGE ?? (deployRuntime ? "deno" : purgeUrls.length > 0 ? "xkey" : "none");
  if (purge === "xkey" && purgeUrls.length === 0) {
    throw new ConfigError("CDN_PURGE_URL", "required with CDN_PURGE=xkey (the Varnish URLs)");
  }
  return { purge, purgeUrls };
}

const SES_ONLY = [
  "SES_ACCESS_KEY_ID",
  "SES_SECRET_ACCESS_KEY",
  "SES_ENDPOINT",
  "SES_CONFIGURATION_SET",
];

/** SMTP (`SMTP_URL`), Amazon SES v2 (`SES_REGION` and its keys), or null: never both. */
function mailConfig(e: ParsedEnv, baseUrl: string): MailConfig | null {
  const from = e.MAIL_FROM ?? `Trust Profile Service <no-reply@${mailDomain(baseUrl)}>`;
  if (!e.SES_REGION) {
    const stray = SES_ONLY.find((name) => e[name as keyof ParsedEnv] !== undefined);
    if (stray) throw new ConfigError("SES_REGION", `required when ${stray} is set`);
    return e.SMTP_URL ? { transport: "smtp", smtpUrl: e.SMTP_URL, from } : null;
  }
  if (e.SMTP_URL) {
    throw new ConfigError(
      "SMTP_URL",
      "set either SMTP_URL (SMTP) or SES_REGION (Amazon SES v2), not both",
    );
  }
  const why = "when SES_REGION is set";
  return {
    transport: "ses",
    from,
    ses: {
      region: e.SES_REGION,
      accessKeyId: required(e.SES_ACCESS_KEY_ID, "SES_ACCESS_KEY_ID", why),
      secretAccessKey: required(e.SES_SECRET_ACCESS_KEY, "SES_SECRET_ACCESS_KEY", why),
      endpoint: e.SES_ENDPOINT ?? `https://email.${e.SES_REGION}.amazonaws.com`,
      configurationSet: e.SES_CONFIGURATION_SET,
    },
  };
}

/** The host of the base URL, as the default sender's domain (`localhost` stays as it is). */
function mailDomain(baseUrl: string): string {
  return new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
}

/** The JSON object in the file at `path`; anything else stops start-up with one line. */
function readTrustedRoot(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound ? "no such file" : (error as Error).message;
    throw new ConfigError("SIGSTORE_TRUSTED_ROOT", `cannot read "${path}": ${why}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError("SIGSTORE_TRUSTED_ROOT", `"${path}" is not JSON`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ConfigError("SIGSTORE_TRUSTED_ROOT", `"${path}" is not a JSON object`);
  }
  return json as Record<string, unknown>;
}
