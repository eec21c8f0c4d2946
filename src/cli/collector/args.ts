/**
 * The collector CLI's command line: its usage text, the options it reads from the arguments
 * and the environment, and the checks that refuse a wrong one (UsageError).
 *
 * @module
 */
import { UsageError } from "./errors.ts";

/** The usage text, naming the module as it was loaded when that was over HTTP(S). */
export function usage(moduleUrl: string): string {
  const module = servedFrom(moduleUrl) ? moduleUrl : "<server>/collector.ts";
  return `Usage: deno run --allow-net --allow-env --allow-read ${module} <command> [options]

Commands:
  heartbeat              report that this collector is alive
  evidence <file>...     send JSON documents as evidence, one record each ("-" reads stdin);
                         more than one file goes in batches of up to 100, each all or nothing
  signals <file>         send a trust signal detection (JSON, "-" reads stdin)
  help                   print this text

Options:
  --server <url>         the service; default: where this file was loaded from (env TRUST_SERVER)
  --project-id <uuid>    the project (env TRUST_PROJECT_ID); evidence and signals
  --collector-id <uuid>  this collector (env TRUST_COLLECTOR_ID); heartbeat
  --type <type>          evidence type: sbom, vulnerability_scan, build_provenance,
                         dependency_inventory, deployment_snapshot, policy_result
  --source-type <type>   aws, collector, custom, github_actions, kubernetes, terraform
                         (default: github_actions in GitHub Actions, else collector)
  --source-ref <ref>     where it comes from (default: $GITHUB_REPOSITORY@$GITHUB_SHA in
                         GitHub Actions, else "cli")
  --observed-at <time>   RFC 3339 time of the observation (default: now)
  --retries <n>          retries after a network error, 408, 429 or 5xx (default 3)
  --json                 print the service's JSON answer instead of a summary
  --allow-unrecognized   exit 0 even when the service did not understand a document
                         (for payloads only a custom rule reads)

Evidence files hold a JSON object or array (conftest's --output json is an array).
The secret comes from the environment variable TRUST_COLLECTOR_SECRET only.
Exit status: 0 sent; 1 refused by the service; 2 usage or input error;
3 service unreachable or failing after the retries; 4 sent and stored, but the
service did not understand at least one document (its control stays unknown).`;
}

// Copies of the service's enums, since the CLI imports nothing of the service; tests/cli keeps
// them equal.
export const EVIDENCE_TYPES = [
  "sbom",
  "vulnerability_scan",
  "build_provenance",
  "dependency_inventory",
  "deployment_snapshot",
  "policy_result",
] as const;
export const SOURCE_TYPES = [
  "aws",
  "collector",
  "custom",
  "github_actions",
  "kubernetes",
  "terraform",
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Options {
  command: "heartbeat" | "evidence" | "signals" | "help";
  /** Where this module was loaded from, for the usage text. */
  moduleUrl: string;
  files: string[];
  server: string;
  projectId?: string;
  collectorId?: string;
  secret: string;
  type?: (typeof EVIDENCE_TYPES)[number];
  sourceType: (typeof SOURCE_TYPES)[number];
  sourceRef: string;
  observedAt: string;
  retries: number;
  json: boolean;
  allowUnrecognized: boolean;
}

const FLAGS = new Set([
  "server",
  "project-id",
  "collector-id",
  "type",
  "source-type",
  "source-ref",
  "observed-at",
  "retries",
]);

/** The service this module was loaded from, when it was loaded over HTTP(S). */
function servedFrom(moduleUrl: string): string | undefined {
  const url = new URL(moduleUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return new URL(".", url).href.replace(/\/$/, "");
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}; got "${value}"`);
  }
  return value as T;
}

function uuid(value: string | undefined, flag: string, env: string): string | undefined {
  if (value !== undefined && !UUID.test(value)) {
    throw new UsageError(`--${flag} (or ${env}) must be a UUID; got "${value}"`);
  }
  return value?.toLowerCase();
}

/**
 * Reads the command line and the environment into options, or throws a UsageError naming
 * what is wrong. `now` and `moduleUrl` are parameters so tests can fix them.
 */
export function parseArgs(
  args: readonly string[],
  getEnv: (name: string) => string | undefined,
  context: { now: Date; moduleUrl: string },
): Options {
  // An empty variable (a CI secret that is not set) counts as unset.
  const env = (name: string) => getEnv(name) || undefined;
  const values = new Map<string, string>();
  const positional: string[] = [];
  let json = false;
  let allowUnrecognized = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--json") {
      json = true;
    } else if (arg === "--allow-unrecognized") {
      allowUnrecognized = true;
    } else if (arg === "--help" || arg === "-h") {
      positional.unshift("help");
    } else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (!FLAGS.has(name)) throw new UsageError(`Unknown option --${name}`);
      const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      values.set(name, value);
    } else {
      positional.push(arg);
    }
  }
  const [command = "help", ...files] = positional;
  if (!["heartbeat", "evidence", "signals", "help"].includes(command)) {
    throw new UsageError(`Unknown command "${command}"`);
  }

  const inActions = env("GITHUB_ACTIONS") === "true";
  const repository = env("GITHUB_REPOSITORY");
  const sha = env("GITHUB_SHA");
  const observedAt = values.get("observed-at") ?? context.now.toISOString();
  if (Number.isNaN(Date.parse(observedAt)) || !/[zZ]|[+-]\d\d:\d\d$/.test(observedAt)) {
    throw new UsageError(
      `--observed-at must be an RFC 3339 time with an offset; got "${observedAt}"`,
    );
  }
  const retries = Number(values.get("retries") ?? 3);
  if (!Number.isInteger(retries) || retries < 0 || retries > 10) {
    throw new UsageError("--retries must be a whole number from 0 to 10");
  }
  const server = values.get("server") ?? env("TRUST_SERVER") ?? servedFrom(context.moduleUrl);
  const options: Options = {
    command: command as Options["command"],
    moduleUrl: context.moduleUrl,
    files,
    server: server?.replace(/(?<!\/)\/+$/, "") ?? "",
    projectId: uuid(
      values.get("project-id") ?? env("TRUST_PROJECT_ID"),
      "project-id",
      "TRUST_PROJECT_ID",
    ),
    collectorId: uuid(
      values.get("collector-id") ?? env("TRUST_COLLECTOR_ID"),
      "collector-id",
      "TRUST_COLLECTOR_ID",
    ),
    secret: env("TRUST_COLLECTOR_SECRET") ?? "",
    type: values.has("type") ? oneOf(values.get("type")!, EVIDENCE_TYPES, "type") : undefined,
    sourceType: oneOf(
      values.get("source-type") ?? (inActions ? "github_actions" : "collector"),
      SOURCE_TYPES,
      "source-type",
    ),
    sourceRef: values.get("source-ref") ??
      (inActions && repository && sha ? `${repository}@${sha}` : "cli"),
    observedAt: new Date(observedAt).toISOString(),
    retries,
    json,
    allowUnrecognized,
  };
  if (options.command === "help") return options;

  if (!server) {
    throw new UsageError("No service: pass --server <url> or set TRUST_SERVER");
  }
  if (!URL.canParse(options.server) || !/^https?:$/.test(new URL(options.server).protocol)) {
    throw new UsageError(`--server must be an http(s) URL; got "${options.server}"`);
  }
  if (!options.secret) throw new UsageError("Set TRUST_COLLECTOR_SECRET to the collector secret");
  if (options.command === "heartbeat") {
    if (!options.collectorId) {
      throw new UsageError("heartbeat needs --collector-id (or TRUST_COLLECTOR_ID)");
    }
    if (files.length) throw new UsageError("heartbeat takes no files");
  } else {
    if (!options.projectId) {
      throw new UsageError(`${options.command} needs --project-id (or TRUST_PROJECT_ID)`);
    }
    if (files.length === 0) throw new UsageError(`${options.command} needs a file ("-" for stdin)`);
    if (options.command === "signals" && files.length > 1) {
      throw new UsageError("signals takes one file");
    }
    if (options.command === "evidence" && !options.type) {
      throw new UsageError(`evidence needs --type (${EVIDENCE_TYPES.join(", ")})`);
    }
  }
  return options;
}
