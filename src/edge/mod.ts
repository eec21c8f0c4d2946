/**
 * Static-first public pages, wired into the app: the render job's handler and the stored
 * layer's dependencies. `attach` hands the job the app's own fetch once the app exists.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { JobMessage } from "../domain/jobs.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import { createPurger, type Purger } from "./purge.ts";
import { type RenderDeps, type RenderEnv, renderOrganization } from "./render.ts";
import { RENDER_JOB } from "../store/edge_pages.ts";
import { insertJob } from "../store/jobs.ts";

/** The job that purges a render's tags a second time, and how long after the first. */
const PURGE_AGAIN_JOB = "edge.purge-again";
export const PURGE_AGAIN_MS = 2000;

export interface Edge {
  purger: Purger;
  /** Gives the render job the app that renders pages. */
  attach(fetch: (request: Request, env: RenderEnv) => Response | Promise<Response>): void;
  /**
   * Renders and purges what changed in one organization now (tests, and the job): the groups
   * `groups` names (`scope:groupId`), or every group whose generations moved.
   */
  render(organizationId: string, groups?: readonly string[] | null): Promise<string[]>;
}

export function createEdge(
  deps: {
    kv: Deno.Kv;
    blobs: BlobStore;
    clock: Clock;
    log: Logger;
    config: Config;
    jobs: JobWorker;
    fetch?: typeof fetch;
  },
): Edge {
  const purger = createPurger(deps.config.edge, deps.fetch ?? fetch);
  const renderDeps: RenderDeps = { ...deps, purger, fetch: null };
  const render = async (organizationId: string, groups: readonly string[] | null = null) => {
    const tags = await renderOrganization(renderDeps, organizationId, groups);
    if (tags.length > 0 && purger.kind !== "none") {
      // A cache miss already in flight when the bytes were stored may reach the edge after
      // the purge with the older page: purging once more shortly after evicts it too.
      const now = deps.clock.now();
      await insertJob(deps.kv, { kind: PURGE_AGAIN_JOB, tags, organizationId }, {
        now,
        dueAt: now.getTime() + PURGE_AGAIN_MS,
      });
    }
    return tags;
  };
  deps.jobs.on(RENDER_JOB, async (message: JobMessage) => {
    // The groups its commit changed; a job without them (a touch by hand) checks every group.
    const groups = Array.isArray(message.groups) ? message.groups.map(String) : null;
    await render(String(message.organizationId), groups);
  });
  deps.jobs.on(PURGE_AGAIN_JOB, async (message: JobMessage) => {
    await purger.purge((message.tags as string[]) ?? []);
  });
  return {
    purger,
    attach(fetch) {
      renderDeps.fetch = fetch;
    },
    render,
  };
}
