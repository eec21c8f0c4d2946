/**
 * Configuration from the environment (DESIGN.md §4). This is the only module
 * that reads `Deno.env`; everything else receives a `Config`.
 */
import { z } from "zod";
import { type IpRange, parseIpRange } from "./lib/ip.ts";

const Url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ""));
const Bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const HostPort = z.string().regex(/^[^:\s]+:\d{1,5}$/, "Expected host:port");

const Env = z.object({
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
  MAIL_FROM: z.string().min(3).max(320).regex(/^[^\r\n]+$/, "Must be one line").optional(),
  WEBHOOK_ALLOW_PRIVATE: Bool.default(false),
  CDN_PURGE: z.enum(["deno", "xkey", "none"]).optional(),
  CDN_PURGE_URL: z.string().min(1).optional(),
  MAX_EVIDENCE_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(
    10 * 1024 * 1024,
  ),
});

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
  /** Peers whose `Forwarded`/`X-Forwarded-For` name the client (empty: none is trusted). */
  trustedProxies: IpRange[];
  /** Longest time a request body may take to arrive, in milliseconds. */
  bodyTimeoutMs: number;
  /**
   * The Sigstore trusted root document read from `SIGSTORE_TRUSTED_ROOT`, or null for the
   * shipped public-good root. Start-up checks that it is a usable trusted root.
   */
  sigstoreTrustedRoot: Record<string, unknown> | null;
  /** Outgoing email (notifications, access links), or null when SMTP_URL is not set. */
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

export interface MailConfig {
  /** `smtp://` (STARTTLS when offered) or `smtps://` (TLS), with credentials if any. A secret. */
  smtpUrl: string;
  /** The From header, e.g. `Trust <trust@example.com>`. */
  from: string;
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
  if (options.onDeploy && !e.BASE_URL) {
    // On Deploy a default of localhost would end up in issuers, sign-in redirects and links.
    throw new ConfigError(
      "BASE_URL",
      "required on Deno Deploy: set it to the deployment's public URL (https://…)",
    );
  }
  const baseUrl = e.BASE_URL ?? `http://localhost:${e.PORT}`;

  return {
    sigstoreTrustedRoot: e.SIGSTORE_TRUSTED_ROOT ? readTrustedRoot(e.SIGSTORE_TRUSTED_ROOT) : null,
    port: e.PORT,
    hostname: e.HOSTNAME,
    baseUrl,
    trustPageBase: e.TRUST_PAGE_BASE ?? baseUrl,
    onDeploy: options.onDeploy ?? false,
    kvPath: e.KV_PATH ?? (options.onDeploy ? undefined : "./data/kv.sqlite3"),
    blobStore: blobStoreConfig(e),
    auth: authConfig(e, baseUrl),
    signup: e.SIGNUP,
    signingKey: e.SIGNING_KEY,
    logSigningKey: e.LOG_SIGNING_KEY,
    dnsNameserver: e.DNS_NAMESERVER ? hostPort(e.DNS_NAMESERVER, "DNS_NAMESERVER") : undefined,
    maxEvidenceBytes: e.MAX_EVIDENCE_BYTES,
    trustedProxies: ipRanges(e.TRUSTED_PROXIES ?? "", "TRUSTED_PROXIES"),
    bodyTimeoutMs: e.BODY_TIMEOUT_SECONDS * 1000,
    mail: e.SMTP_URL
      ? {
        smtpUrl: e.SMTP_URL,
        from: e.MAIL_FROM ?? `Trust Profile Service <no-reply@${mailDomain(baseUrl)}>`,
      }
      : null,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    edge: edgeConfig(e, options.onDeploy ?? false),
  };
}

/** The purge driver: as set, else Deploy's CDN on Deploy, Varnish when URLs are given, else none. */
function edgeConfig(e: ParsedEnv, onDeploy: boolean): EdgeConfig {
  const purgeUrls = (e.CDN_PURGE_URL ?? "").split(",").map((url) => url.trim()).filter(Boolean);
  for (const url of purgeUrls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new ConfigError("CDN_PURGE_URL", `"${url.slice(0, 100)}" is not an http(s) URL`);
    }
  }
  const purge = e.CDN_PURGE ?? (onDeploy ? "deno" : purgeUrls.length > 0 ? "xkey" : "none");
  if (purge === "xkey" && purgeUrls.length === 0) {
    throw new ConfigError("CDN_PURGE_URL", "required with CDN_PURGE=xkey (the Varnish URLs)");
  }
  return { purge, purgeUrls };
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
