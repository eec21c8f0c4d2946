/**
 * Whether the KV outlives this isolate. On Deno Deploy an app with no KV database assigned
 * still gets a working `Deno.openKv()`, backed by memory that lives as long as the isolate
 * (denoland/deploy_feedback#905): what is written vanishes at the next cold start, with no
 * error. Nothing the runtime exposes says whether a database is assigned (docs/deploy.md), so
 * persistence is proven across isolates: each isolate writes a marker with its own id when it
 * starts, and an isolate that finds another isolate's marker has read data that outlived its
 * writer. That proof is written down, so every later isolate sees it at once. On the per-isolate
 * memory no isolate ever sees another's marker: the database stays unproven, and accounts and
 * evidence are refused (src/http/storage_guard.ts) rather than lost.
 *
 * An operator may also acknowledge that a database is assigned (`KV_PERSISTENCE=assigned`):
 * writes are then accepted from the first isolate, and the proof still runs and is reported.
 */

/** `local`: not Deploy's default database (a file, `:memory:` by choice, a KV Connect URL). */
export type PersistenceState = "local" | "proven" | "acknowledged" | "unproven";

export interface PersistenceStatus {
  state: PersistenceState;
  /** Whether accounts may be created and evidence accepted. */
  writable: boolean;
  /** This isolate's id (in its marker). */
  isolateId: string;
  /** When another isolate's marker was first seen (null: not yet). */
  provenAt: string | null;
  /** What to do, for the log, readiness, the first-run page and the dashboard (null: nothing). */
  action: string | null;
}

export interface KvPersistence {
  /** The state now; while not proven, looks again (at most every `recheckMs`). */
  check(): Promise<PersistenceStatus>;
  /** The state last seen, without reading. */
  status(): PersistenceStatus;
}

const PREFIX = ["kv_persistence"] as const;
/** Isolate markers are kept this long: enough for any later isolate to find one. */
const MARKER_TTL_MS = 30 * 24 * 3600 * 1000;
/** Markers read per check: one other than this isolate's is proof. */
const MARKERS_READ = 10;

/** What an operator must do while the database is not proven. */
export const UNPROVEN_ACTION =
  "No KV database is proven to be assigned to this app on Deno Deploy: without one, Deno.openKv() keeps data only in this isolate's memory and it is lost at the next cold start. " +
  "Assign a Deno KV database to the app (Databases → Assign) and deploy a new build; accounts and evidence are accepted once a second isolate has read this one's marker (the next cold start or cron tick), " +
  "or at once with KV_PERSISTENCE=assigned in the context's environment variables.";

const ACKNOWLEDGED_ACTION =
  "KV_PERSISTENCE=assigned: accepted on the operator's word; not yet proven by a second isolate (if no database is assigned, data is lost at the next cold start).";

/**
 * The persistence check of `kv`. With `probe` false (not Deploy's default database) it is
 * `local` and never reads.
 */
export function createKvPersistence(
  kv: Deno.Kv,
  options: { probe: boolean; acknowledged: boolean; now?: () => number; recheckMs?: number },
): KvPersistence {
  const now = options.now ?? Date.now;
  const recheckMs = options.recheckMs ?? 2_000;
  const isolateId = crypto.randomUUID();
  let provenAt: string | null = null;
  let lastCheck = -Infinity;
  let marked = false;
  let pending: Promise<PersistenceStatus> | null = null;

  const status = (): PersistenceStatus => {
    if (!options.probe) {
      return { state: "local", writable: true, isolateId, provenAt: null, action: null };
    }
    if (provenAt !== null) {
      return { state: "proven", writable: true, isolateId, provenAt, action: null };
    }
    if (options.acknowledged) {
      return {
        state: "acknowledged",
        writable: true,
        isolateId,
        provenAt: null,
        action: ACKNOWLEDGED_ACTION,
      };
    }
    return {
      state: "unproven",
      writable: false,
      isolateId,
      provenAt: null,
      action: UNPROVEN_ACTION,
    };
  };

  const look = async (): Promise<PersistenceStatus> => {
    lastCheck = now();
    const proof = await kv.get<{ at: string; by: string }>([...PREFIX, "proven"]);
    if (proof.value) {
      provenAt = proof.value.at;
      return status();
    }
    for await (
      const entry of kv.list<{ at: string }>({ prefix: [...PREFIX, "isolate"] }, {
        limit: MARKERS_READ,
      })
    ) {
      if (entry.key[2] === isolateId) continue;
      const at = new Date(now()).toISOString();
      await kv.atomic().check({ key: [...PREFIX, "proven"], versionstamp: null })
        .set([...PREFIX, "proven"], { at, by: isolateId, saw: entry.key[2] }).commit();
      provenAt = at;
      return status();
    }
    if (!marked) {
      await kv.set([...PREFIX, "isolate", isolateId], { at: new Date(now()).toISOString() }, {
        expireIn: MARKER_TTL_MS,
      });
      marked = true;
    }
    return status();
  };

  return {
    status,
    check() {
      if (!options.probe || provenAt !== null) return Promise.resolve(status());
      if (marked && now() - lastCheck < recheckMs) return Promise.resolve(status());
      pending ??= look().finally(() => pending = null);
      return pending;
    },
  };
}
