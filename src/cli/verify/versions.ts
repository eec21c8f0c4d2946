/**
 * The version chain: every page of the version listing, each version's trust.json and JWS
 * (signature, `prev` chained to the version before, its log inclusion), and the latest
 * trust.json the service serves.
 *
 * @module
 */
import { decoder, equal, fromBase64, hex, sha256 } from "./bytes.ts";
import { type Keyring, verifyJws } from "./jws.ts";
import { type Checkpoint, leafHashOf, verifyInclusion } from "./log_proofs.ts";
import {
  FetchError,
  getBytes,
  getJson,
  getOptionalBytes,
  inOrder,
  type Io,
  isCount,
} from "./net.ts";
import { ranges, type Report } from "./report.ts";

/** A version as the listing gives it. */
export interface Listed {
  version: number;
  digest: string;
}

/** Versions per page the kit asks for (the listing's most). */
const PAGE = 100;

/**
 * Every page of the version listing (newest first), each version once in ascending order.
 * Fails a listing out of order, a version listed twice and every version missing below the
 * newest; null when the listing cannot be walked at all. A page must move back in the
 * history, and the listing may not outgrow the log, so the walk always ends.
 */
export async function readListing(
  io: Io,
  page: string,
  logSize: number,
  report: Report,
): Promise<Listed[] | null> {
  const listed: Listed[] = [];
  let disorder: string | undefined;
  const twice = new Set<number>();
  for (let cursor: string | null = null, pages = 1;; pages++) {
    const url: string = `${page}/versions?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ""}`;
    const body = await getJson<{ versions?: unknown; nextCursor?: unknown }>(io, url);
    const items = Array.isArray(body.versions) ? body.versions as Listed[] : null;
    if (!items || items.some((v) => !isCount(v?.version) || typeof v.digest !== "string")) {
      report.fail(`listing: ${url} is not a version listing`);
      return null;
    }
    for (const { version, digest } of items) {
      const last = listed.at(-1);
      if (last && version >= last.version) {
        if (listed.some((l) => l.version === version)) twice.add(version);
        disorder ??= `version ${version} comes after version ${last.version}`;
      }
      listed.push({ version, digest });
    }
    const next = body.nextCursor ?? null;
    if (next === null) break;
    if (
      typeof next !== "string" || !/^[1-9][0-9]*$/.test(next) || items.length === 0 ||
      (cursor !== null && Number(next) >= Number(cursor))
    ) {
      report.fail(`listing: page ${pages} gives a cursor that does not move back ("${next}")`);
      return null;
    }
    if (listed.length > logSize) {
      report.fail(`listing: more versions listed than the log holds entries (${logSize})`);
      return null;
    }
    cursor = next;
  }
  if (disorder) report.fail(`listing: out of order (newest first expected): ${disorder}`);
  if (twice.size) {
    report.fail(`listing: version(s) ${ranges([...twice].sort((a, b) => a - b))} listed twice`);
  }
  const versions = new Map<number, Listed>();
  for (const item of listed) if (!versions.has(item.version)) versions.set(item.version, item);
  const ordered = [...versions.values()].sort((a, b) => a.version - b.version);
  if (ordered.length === 0) {
    report.fail(`listing: ${page}/versions lists no version`);
    return null;
  }
  const newest = ordered.at(-1)!.version;
  const missing: number[] = [];
  for (let n = 1; n <= newest; n++) if (!versions.has(n)) missing.push(n);
  if (missing.length) {
    report.fail(`listing: version(s) ${ranges(missing)} of 1-${newest} missing from the listing`);
  } else if (!disorder && !twice.size) {
    const pages = Math.max(1, Math.ceil(listed.length / PAGE));
    report.pass(`listing: versions 1-${newest}, newest first, on ${pages} page(s)`);
  }
  return ordered;
}

/** What the kit knows of the log while it checks the versions. */
export interface LogContext {
  server: string;
  slug: string;
  page: string;
  latest: Checkpoint;
  ring: Keyring;
  /** The change of publisher the buyer accepted (`--pin publisher=`), if any. */
  publisher?: number;
  /** The custom domain's change of holder the buyer accepted (`--pin domain=`), if any. */
  domainPin?: number;
}

/** A version's documents: trust.json and JWS (null when 404) and its inclusion proof. */
interface Fetched {
  bytes: Uint8Array | null;
  jws: Uint8Array | null;
  inclusion: { leafIndex: unknown; proof: unknown } | null;
}

/** Version `n`'s documents; a 404 (or 400: beyond the checkpoint) proof is null. */
async function fetchVersion(io: Io, ctx: LogContext, n: number): Promise<Fetched> {
  const proofUrl =
    `${ctx.server}/log/publications/${ctx.slug}/${n}/inclusion?treeSize=${ctx.latest.size}`;
  const inclusion = async () => {
    if (ctx.latest.size === 0) return null;
    let res: Response;
    try {
      res = await io.fetch(proofUrl, { signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new FetchError(`${proofUrl}: ${(error as Error).message}`);
    }
    if (res.status === 404 || res.status === 400) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new FetchError(`${proofUrl} answered ${res.status}`, res.status);
    }
    return await res.json() as Fetched["inclusion"];
  };
  const [bytes, jws, proof] = await Promise.all([
    getOptionalBytes(io, `${ctx.page}/versions/${n}/trust.json`),
    getOptionalBytes(io, `${ctx.page}/versions/${n}/trust.json.jws`),
    inclusion(),
  ]);
  return { bytes, jws, inclusion: proof };
}

type Profile = { project?: { slug?: string }; version?: number; publishedAt?: string };

/** The log entry a trust.json makes (see GET /log's entryFormat). */
function entryOf(profile: Profile, digest: string): string {
  return `trust-profile-publication/v1\n${profile.project?.slug}\n${profile.version}\n${digest}\n${profile.publishedAt}\n`;
}

/** A version that passed every check: where it is in the log, and its leaf hash. */
export interface Verified {
  leafIndex: number;
  leafHash: Uint8Array;
}

/** What the versions checked before tell the next one: each digest, and whether it verified. */
type Chain = Map<number, { digest: string; verified: boolean }>;

/** The problems of version `listed` (none: it verified), given the versions before it. */
async function versionProblems(
  ctx: LogContext,
  listed: Listed,
  fetched: Fetched & { bytes: Uint8Array; jws: Uint8Array },
  chain: Chain,
  signers: Set<string>,
): Promise<{ problems: string[]; digest: string; verified?: Verified }> {
  const n = listed.version;
  const problems: string[] = [];
  const { bytes } = fetched;
  const digest = `sha256:${hex(await sha256(bytes))}`;
  try {
    const { header, payload } = await verifyJws(decoder.decode(fetched.jws), ctx.ring);
    signers.add(String(header.kid));
    if (!equal(payload, bytes)) problems.push("the JWS signs other bytes than trust.json");
    if (header.ver !== n) problems.push(`the JWS names version ${header.ver}`);
    const before = chain.get(n - 1);
    if (n === 1) {
      if (header.prev !== null) problems.push(`prev is ${header.prev}, but version 1 has none`);
    } else if (!before) {
      problems.push(`version ${n - 1} is missing, so its prev ${header.prev} is unchecked`);
    } else if (header.prev !== before.digest) {
      problems.push(`prev is ${header.prev}, but version ${n - 1} hashes to ${before.digest}`);
    } else if (!before.verified) {
      problems.push(`it follows version ${n - 1}, which did not verify`);
    }
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (digest !== listed.digest) problems.push(`listed digest ${listed.digest} is not ${digest}`);
  let profile: Profile = {};
  try {
    profile = JSON.parse(decoder.decode(bytes));
  } catch {
    problems.push("trust.json is not JSON");
  }
  if (profile.project?.slug !== ctx.slug) {
    problems.push(`trust.json names "${profile.project?.slug}"`);
  }
  if (profile.version !== n) problems.push(`trust.json names version ${profile.version}`);

  const { latest } = ctx;
  const proof = fetched.inclusion;
  const leafHash = await leafHashOf(entryOf(profile, digest));
  if (!proof) {
    problems.push(`not in the publication log up to the checkpoint (${latest.size} entries)`);
    return { problems, digest };
  }
  const included = isCount(proof.leafIndex) && Array.isArray(proof.proof) &&
    await verifyInclusion(
      proof.leafIndex,
      latest.size,
      (proof.proof as string[]).map(fromBase64),
      leafHash,
      latest.root,
    );
  if (!included) problems.push("its inclusion proof does not verify against the checkpoint");
  if (problems.length) return { problems, digest };
  return { problems, digest, verified: { leafIndex: proof.leafIndex as number, leafHash } };
}

/** Documents fetched at once. */
const WIDTH = 8;

/**
 * Checks every listed version in ascending order, each chained to the verified version
 * before it. Returns the versions that verified and the keys that signed them.
 */
export async function checkVersions(io: Io, ctx: LogContext, ordered: Listed[], report: Report) {
  const chain: Chain = new Map();
  const verified = new Map<number, Verified>();
  const signers = new Set<string>();
  for await (
    const [listed, fetched] of inOrder(ordered, WIDTH, (l) => fetchVersion(io, ctx, l.version))
  ) {
    const n = listed.version;
    const { bytes, jws } = fetched;
    if (!bytes || !jws) {
      report.fail(`version ${n}: listed, but its ${bytes ? "JWS" : "trust.json"} answers 404`);
      continue;
    }
    const result = await versionProblems(ctx, listed, { ...fetched, bytes, jws }, chain, signers);
    chain.set(n, { digest: result.digest, verified: result.verified !== undefined });
    if (result.verified) {
      verified.set(n, result.verified);
      report.pass(
        `version ${n}: signature, chain and log inclusion (${result.digest.slice(0, 19)}…)`,
      );
    } else report.fail(`version ${n}: ${result.problems.join("; ")}`);
  }
  return { verified, signers: [...signers] };
}

/** The latest trust.json the service serves must be the newest version listed. */
export async function checkLatest(io: Io, page: string, newest: Listed, report: Report) {
  const url = `${page}/trust.json`;
  const bytes = await getBytes(io, url);
  let version: unknown;
  try {
    version = JSON.parse(decoder.decode(bytes)).version;
  } catch {
    version = undefined;
  }
  if (version !== newest.version) {
    report.fail(`latest: ${url} is version ${version}, but the listing ends at ${newest.version}`);
  } else if (`sha256:${hex(await sha256(bytes))}` !== newest.digest) {
    report.fail(`latest: ${url} differs from version ${newest.version} as listed`);
  } else report.pass(`latest: ${url} is version ${newest.version}`);
}
