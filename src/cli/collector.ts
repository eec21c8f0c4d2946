/**
 * The collector CLI: sends heartbeats, evidence and trust signals to the
 * Trust Profile Service from CI or a schedule. It is one module with no
 * imports, served by the service at /collector.ts, so a pipeline runs it as
 *
 *   deno run --allow-net --allow-env --allow-read https://trust.example.com/collector.ts heartbeat
 *
 * and talks to the service it was loaded from. The collector secret is read
 * from TRUST_COLLECTOR_SECRET only, never from a flag (flags show up in
 * process lists and CI logs), and is never printed.
 *
 * @module
 */

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

// Copies of the service's enums, since this module imports nothing; tests/cli keeps them equal.
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
/** Records per call to the batch endpoint (the service's limit). */
export const BATCH_SIZE = 100;
const REQUEST_TIMEOUT_MS = 60_000;
const MAX_RETRY_DELAY_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A mistake in the command line or the input files: exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The service answered with an error status: exit status 1 (4xx) or 3 (5xx). */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The service could not be reached: exit status 3. */
export class NetworkError extends Error {
  override name = "NetworkError";
}

/** Stored, but the service could not read a document as its evidence type: exit status 4. */
export class NotUnderstoodError extends Error {
  override name = "NotUnderstoodError";
}

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

/** Reads a file ("-" is stdin) as a JSON object, or throws a UsageError naming it. */
export async function readJsonObject(
  file: string,
  read: (file: string) => Promise<string>,
): Promise<Record<string, unknown>> {
  const value = await readJson(file, read);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${file} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Reads an evidence document: a JSON object or a JSON array (conftest's `--output json`),
 * or a stream of JSON objects one after another (`govulncheck -json`, the lines of `yarn
 * npm audit --json`), sent as an array of them; or throws a UsageError naming the file.
 */
export async function readJsonDocument(
  file: string,
  read: (file: string) => Promise<string>,
): Promise<Record<string, unknown> | unknown[]> {
  const value = await readJson(file, read, true);
  if (typeof value !== "object" || value === null) {
    throw new UsageError(`${file} must hold a JSON object or array`);
  }
  return value as Record<string, unknown> | unknown[];
}

async function readJson(
  file: string,
  read: (file: string) => Promise<string>,
  stream = false,
): Promise<unknown> {
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const values = stream ? splitJsonStream(text) : null;
    if (values !== null) return values;
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * The values of a stream of JSON objects or arrays written one after another (JSON Lines,
 * or pretty-printed objects as govulncheck writes them), or null when `text` is not such a
 * stream of at least two values.
 */
export function splitJsonStream(text: string): unknown[] | null {
  const values: unknown[] = [];
  let depth = 0, start = -1, inString = false, escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      if (depth === 0) return null;
      inString = true;
    } else if (c === "{" || c === "[") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" || c === "]") {
      if (--depth < 0) return null;
      if (depth === 0) {
        try {
          values.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return null;
        }
      }
    } else if (depth === 0 && !/\s/.test(c)) {
      return null;
    }
  }
  return depth === 0 && values.length >= 2 ? values : null;
}

interface Reading {
  format?: string | null;
  understood?: boolean;
  summary?: string;
}

/**
 * Lines naming each sent file the service stored but did not understand, from the
 * records' `reading` (in request order); none when every reading understood its payload
 * or the service sends no readings.
 */
export function notUnderstood(files: readonly string[], records: unknown): string[] {
  if (!Array.isArray(records)) return [];
  return records.flatMap((record, i) => {
    const reading = (record as { reading?: Reading } | null)?.reading;
    if (reading?.understood !== false) return [];
    return [`${files[i] ?? `record ${i + 1}`}: ${reading.summary ?? "not understood"}`];
  });
}

interface ControlEffect {
  key?: string;
  name?: string;
  previousState?: string | null;
  state?: string;
  reason?: string | null;
  evidenceRecordId?: string | null;
}

/**
 * What the service understood of each sent file, one line each: the format it recognized
 * and its one-line summary, or that it could not read the document and why.
 */
export function readingLines(files: readonly string[], records: unknown): string[] {
  if (!Array.isArray(records)) return [];
  return records.flatMap((record, i) => {
    const reading = (record as { reading?: Reading } | null)?.reading;
    if (!reading) return [];
    const file = files[i] ?? `record ${i + 1}`;
    const summary = reading.summary ?? "";
    if (reading.understood === false) return [`  ${file}: not understood: ${summary}`];
    const format = reading.format ? ` (format ${reading.format})` : "";
    return [`  ${file}: read${format}: ${summary}`];
  });
}

/**
 * One line per control that reads the evidence sent: its state before and now ("unknown ->
 * pass"), or that it stays, and why when the reason says more than the readings did. A
 * control decided by a record other than the ones sent (a newer observation) says so.
 */
export function controlLines(
  controls: unknown,
  sent: { ids: readonly string[]; summaries: readonly string[] },
): string[] {
  if (!Array.isArray(controls)) return [];
  return controls.map((control: ControlEffect) => {
    const name = `${control.name ?? control.key} (${control.key})`;
    const moved = control.previousState !== control.state;
    const state = moved
      ? `${control.previousState ?? "not evaluated"} -> ${control.state}`
      : `${control.state}, unchanged`;
    const newer = control.evidenceRecordId && !sent.ids.includes(control.evidenceRecordId)
      ? " (decided by a newer record)"
      : "";
    const reason = control.reason && !sent.summaries.includes(control.reason)
      ? `: ${control.reason}`
      : "";
    return `  control ${name}: ${state}${newer}${reason}`;
  });
}

/** How long to wait before retry number `attempt` (1-based): Retry-After, else 1 s, 2 s, 4 s… */
export function retryDelayMs(attempt: number, retryAfter: string | null): number {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    const at = Date.parse(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Number.isNaN(at) ? NaN : at - Date.now();
    if (Number.isFinite(ms)) return Math.min(Math.max(0, ms), MAX_RETRY_DELAY_MS);
  }
  return Math.min(1000 * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
}

const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * POSTs `body` as JSON with the collector secret, retrying network errors, timeouts, 408,
 * 429 and 5xx (the same request, so a retried ingest is a replay the service recognizes).
 * Resolves with the status and parsed answer of a 2xx; throws ServiceError or NetworkError.
 */
export async function post(
  options: Pick<Options, "server" | "secret" | "retries">,
  path: string,
  body: unknown,
  extraHeaders: Record<string, string> = {},
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<{ status: number; json: unknown }> {
  const text = JSON.stringify(body);
  for (let attempt = 0;; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${options.server}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${options.secret}`,
          "content-type": "application/json",
          accept: "application/json",
          ...extraHeaders,
        },
        body: text,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      if (attempt < options.retries) {
        await sleep(retryDelayMs(attempt + 1, null));
        continue;
      }
      throw new NetworkError(
        `Cannot reach ${options.server}: ${(error as Error).message} (after ${
          attempt + 1
        } attempts)`,
      );
    }
    const answer = await res.text();
    if (res.ok) {
      return { status: res.status, json: answer ? JSON.parse(answer) : null };
    }
    if (RETRIED_STATUSES.has(res.status) && attempt < options.retries) {
      await sleep(retryDelayMs(attempt + 1, res.headers.get("retry-after")));
      continue;
    }
    throw new ServiceError(res.status, describeError(res.status, answer));
  }
}

/** One line from the service's error envelope, or its status when there is none. */
function describeError(status: number, answer: string): string {
  try {
    const { error } = JSON.parse(answer);
    if (error?.message) {
      const details = error.details && Object.keys(error.details).length
        ? ` ${JSON.stringify(error.details)}`
        : "";
      return `${status} ${error.code ?? ""}: ${error.message}${details}`.replace(" :", ":");
    }
  } catch {
    // not the envelope: fall through
  }
  return `${status} ${answer.slice(0, 200)}`.trim();
}

interface Io {
  read(file: string): Promise<string>;
  out(line: string): void;
  sleep?(ms: number): Promise<void>;
}

/** Runs one command, printing through `io.out`; throws UsageError, ServiceError or NetworkError. */
export async function run(options: Options, io: Io): Promise<void> {
  const send = (path: string, body: unknown, headers?: Record<string, string>) =>
    post(options, path, body, headers, io.sleep);
  switch (options.command) {
    case "help":
      io.out(usage(options.moduleUrl));
      return;
    case "heartbeat": {
      const { json } = await send(`/collectors/${options.collectorId}/heartbeat`, {
        sourceRef: options.sourceRef,
      });
      const seen = (json as { collector?: { lastSeenAt?: string } })?.collector?.lastSeenAt;
      io.out(
        options.json ? JSON.stringify(json) : `heartbeat: recorded${seen ? ` at ${seen}` : ""}`,
      );
      return;
    }
    case "signals": {
      const detection = await readJsonObject(options.files[0], io.read);
      const { json } = await send("/ingest/signals", { projectId: options.projectId, detection });
      io.out(options.json ? JSON.stringify(json) : "signals: recorded");
      return;
    }
    case "evidence":
      return await sendEvidence(options, io, send);
  }
}

type Send = (
  path: string,
  body: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; json: unknown }>;

/**
 * Sends the evidence files, one record alone or in batches of BATCH_SIZE, then refuses
 * (NotUnderstoodError) when the service stored a document it did not understand.
 */
async function sendEvidence(options: Options, io: Io, send: Send): Promise<void> {
  const records = [];
  for (const file of options.files) {
    records.push({
      evidenceType: options.type,
      sourceType: options.sourceType,
      sourceRef: options.sourceRef,
      observedAt: options.observedAt,
      payload: await readJsonDocument(file, io.read),
    });
  }
  const unread: string[] = [];
  if (records.length === 1) {
    const { status, json } = await send(
      "/ingest/evidence",
      { projectId: options.projectId, ...records[0] },
      { "idempotency-key": crypto.randomUUID() },
    );
    const answer = json as { record?: { id?: string }; controls?: unknown } | null;
    const record = answer?.record;
    if (options.json) io.out(JSON.stringify(json));
    else {
      io.out(
        `evidence: ${status === 201 ? "stored" : "already stored"} ${record?.id ?? ""}`.trim(),
      );
      printEffects(io, options.files, [record], answer?.controls);
    }
    unread.push(...notUnderstood(options.files, [record]));
    return refuseUnread(unread, options);
  }
  const effects = new Map<string, ControlEffect>();
  const sentIds: string[] = [];
  const summaries: string[] = [];
  for (let first = 0; first < records.length; first += BATCH_SIZE) {
    const batch = records.slice(first, first + BATCH_SIZE);
    const { status, json } = await send(
      "/ingest/evidence/batch",
      { projectId: options.projectId, records: batch },
      { "idempotency-key": crypto.randomUUID() },
    );
    const last = first + batch.length;
    const answer = json as { records?: unknown; controls?: unknown } | null;
    const answered = answer?.records;
    const files = options.files.slice(first, last);
    unread.push(...notUnderstood(files, answered));
    if (options.json) {
      io.out(JSON.stringify(json));
      continue;
    }
    io.out(
      `evidence: records ${first + 1}-${last} of ${records.length} ${
        status === 201 ? "stored" : "already stored"
      }`,
    );
    for (const line of readingLines(files, answered)) io.out(line);
    for (const record of Array.isArray(answered) ? answered : []) {
      const { id, reading } = (record ?? {}) as { id?: string; reading?: Reading };
      if (id) sentIds.push(id);
      if (reading?.summary) summaries.push(reading.summary);
    }
    // A control keeps the state it had before the first batch and takes the last one's.
    for (const effect of Array.isArray(answer?.controls) ? answer.controls : []) {
      const seen = effects.get(effect.key);
      effects.set(effect.key, seen ? { ...effect, previousState: seen.previousState } : effect);
    }
  }
  if (!options.json) {
    for (const line of controlLines([...effects.values()], { ids: sentIds, summaries })) {
      io.out(line);
    }
  }
  return refuseUnread(unread, options);
}

/** Prints what the service understood of the sent files and what it did to their controls. */
function printEffects(io: Io, files: readonly string[], records: unknown[], controls: unknown) {
  for (const line of readingLines(files, records)) io.out(line);
  const sent = records as Array<{ id?: string; reading?: Reading } | undefined>;
  const lines = controlLines(controls, {
    ids: sent.flatMap((r) => r?.id ? [r.id] : []),
    summaries: sent.flatMap((r) => r?.reading?.summary ? [r.reading.summary] : []),
  });
  for (const line of lines) io.out(line);
}

/** Throws NotUnderstoodError listing `unread`, unless there is none or it is allowed. */
function refuseUnread(unread: string[], options: Pick<Options, "type" | "allowUnrecognized">) {
  if (unread.length === 0 || options.allowUnrecognized) return;
  throw new NotUnderstoodError(
    `The service stored but did not understand ${unread.length} ${options.type} ` +
      `document${unread.length === 1 ? "" : "s"}, so its control will stay unknown ` +
      `(--allow-unrecognized accepts this):\n  ${unread.join("\n  ")}`,
  );
}

/** The exit status for an error thrown by `parseArgs` or `run`. */
export function exitStatus(error: unknown): number {
  if (error instanceof UsageError) return 2;
  if (error instanceof NotUnderstoodError) return 4;
  if (error instanceof ServiceError && error.status < 500) return 1;
  // A 5xx after the retries, a NetworkError, or anything unexpected.
  return 3;
}

async function readInput(file: string): Promise<string> {
  if (file !== "-") return await Deno.readTextFile(file);
  return await new Response(Deno.stdin.readable).text();
}

if (import.meta.main) {
  try {
    const options = parseArgs(Deno.args, (name) => Deno.env.get(name), {
      now: new Date(),
      moduleUrl: import.meta.url,
    });
    await run(options, { read: readInput, out: (line) => console.log(line) });
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    if (error instanceof UsageError) console.error("Run with --help for usage.");
    Deno.exit(exitStatus(error));
  }
}
