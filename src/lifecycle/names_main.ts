/**
 * `deno task names release <project|organization|domain> <name>`: the operator's release of a
 * name a deletion left reserved (its tombstone, src/store/deletions.ts). Run on the host like
 * `deno task backup`: it opens the KV the service uses (KV_PATH; a KV Connect URL with
 * DENO_KV_ACCESS_TOKEN) and exits 0 (released), 1 (no such reservation, or failed: one line
 * saying why) or 2 (usage). No tenant can release a name: there is no route that does this.
 * Once released, any tenant may take the name (until then it still answers 410). A project
 * that takes a released project slug appends to the publication log an entry recording the
 * change of publisher, and the verifier kit reports "a different publisher since entry N"
 * instead of VERIFIED across it; an organization slug or a custom domain carries no such
 * record, so release only a name whose old holder asks for it back or that no buyer can still
 * rely on.
 */
import { ConfigError, loadConfig } from "../config.ts";
import { releaseName, type ReservedNameKind } from "../store/deletions.ts";
import { withKvRetry } from "../store/kv_retry.ts";

const USAGE = `usage: deno task names release <project|organization|domain> <name>
Releases a deleted project's or organization's slug, or a deleted project's verified custom
domain, so that another tenant may take it. The KV comes from the environment (KV_PATH).`;

const KINDS: readonly ReservedNameKind[] = ["project", "organization", "domain"];

/** Runs the command with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const [command, kind, name, ...rest] = args;
  if (
    command !== "release" || !KINDS.includes(kind as ReservedNameKind) || !name ||
    name.startsWith("-") || rest.length > 0
  ) {
    console.error(USAGE);
    return 2;
  }
  try {
    const config = loadConfig(Deno.env.toObject());
    const kv = withKvRetry(await Deno.openKv(config.kvPath));
    try {
      const normalized = kind === "domain" ? name.toLowerCase() : name;
      if (!(await releaseName(kv, kind as ReservedNameKind, normalized, new Date()))) {
        console.error(
          `No reserved ${kind} name "${normalized}" (or it is released already): nothing to release`,
        );
        return 1;
      }
      console.log(`Released the ${kind} name "${normalized}": any tenant may take it now`);
      return 0;
    } finally {
      kv.close();
    }
  } catch (error) {
    console.error(
      error instanceof ConfigError ? error.message : `release failed: ${(error as Error).message}`,
    );
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
