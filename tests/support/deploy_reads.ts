/**
 * Reading a public project through the CDN, for the Deploy-shaped tests: which version a
 * response shows (trust.json or the HTML page), whether the cache answered it, and the count of
 * reads that began after a purge was acknowledged and still showed an older version.
 */
import { PURGE_AGAIN_MS } from "../../src/edge/mod.ts";

/** One read through the edge. */
export interface EdgeRead {
  /** Epoch ms when the request was sent. */
  startedAt: number;
  kind: "json" | "html";
  status: number;
  /** The version the response shows (0 when none). */
  version: number;
  /** `X-Cache` (HIT or MISS). */
  cache: string;
}

/** A purge the origin had acknowledged, and the version it made visible. */
export interface Acknowledged {
  version: number;
  /** Epoch ms of `deploy-emulation: purge acknowledged …`. */
  at: number;
}

/** Reads `/trust/<slug>/trust.json` (json) or `/trust/<slug>` as HTML through `base`. */
export async function readVersion(
  base: string,
  slug: string,
  kind: "json" | "html",
): Promise<EdgeRead> {
  const startedAt = Date.now();
  const res = kind === "json"
    ? await fetch(`${base}/trust/${slug}/trust.json`)
    : await fetch(`${base}/trust/${slug}`, { headers: { accept: "text/html" } });
  const text = await res.text();
  let version = 0;
  if (res.status === 200) {
    version = kind === "json"
      ? Number(JSON.parse(text).version)
      : Number(text.match(/<dt>Version<\/dt>\s*<dd>(\d+)<\/dd>/)?.[1] ?? 0);
  }
  return { startedAt, kind, status: res.status, version, cache: res.headers.get("x-cache") ?? "" };
}

/** The reads that began after an acknowledged purge and still showed an older version. */
export function staleAfterPurge(reads: EdgeRead[], acks: Acknowledged[]): EdgeRead[] {
  return reads.filter((read) => {
    const before = acks.filter((ack) => ack.at < read.startedAt);
    const expected = Math.max(0, ...before.map((ack) => ack.version));
    return read.version < expected;
  });
}

/** The `purge acknowledged` lines from `from` on: their tags and epoch ms. */
export function purgeAcks(lines: string[], from = 0): Array<{ tags: string[]; at: number }> {
  return lines.slice(from).flatMap((line) => {
    const match = line.match(/^deploy-emulation: purge acknowledged (\S*) (\d+)$/);
    return match ? [{ tags: match[1].split(","), at: Number(match[2]) }] : [];
  });
}

/**
 * When the second purge of `tag` (src/edge/mod.ts, `PURGE_AGAIN_MS` after a render) was
 * acknowledged, for a render whose first purge of it was acknowledged at `firstAt`: the first
 * acknowledgement of `tag` at least that long after. Null while there is none.
 */
export function secondPurgeAck(
  lines: string[],
  from: number,
  tag: string,
  firstAt: number,
): number | null {
  return purgeAcks(lines, from).find((a) =>
    a.tags.includes(tag) && a.at >= firstAt + PURGE_AGAIN_MS
  )?.at ?? null;
}

/** Share of reads the cache answered. */
export function hitRatio(reads: EdgeRead[]): number {
  return reads.length ? reads.filter((r) => r.cache === "HIT").length / reads.length : 0;
}
