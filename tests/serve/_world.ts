/**
 * A small world for src/serve on an in-memory KV: one organization with a
 * public published project ("acme", hosted subdomain "acme"), a public
 * project that never published ("draft") and a private published one
 * ("hidden"), written through the store and the real publish flow.
 */
import { loadSigningKey } from "../../src/auth/keys.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { loadConfig } from "../../src/config.ts";
import type { Project } from "../../src/domain/workspace.ts";
import { catalogControls } from "../../src/evaluate/catalog.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { publishProject } from "../../src/publish/publish.ts";
import { createArtifactCache } from "../../src/serve/artifacts.ts";
import type { PublicReads } from "../../src/serve/public_read.ts";
import { createOrganization } from "../../src/store/organizations.ts";
import { createProject } from "../../src/store/projects.ts";
import type { Publication } from "../../src/domain/publication.ts";

export interface ServeWorld extends PublicReads {
  config: ReturnType<typeof loadConfig>;
  orgSlug: string;
  acme: Project;
  draft: Project;
  hidden: Project;
  published: Publication;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Builds the world; dispose it to close the KV. */
export async function serveWorld(): Promise<ServeWorld> {
  const kv = await Deno.openKv(":memory:");
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  const config = loadConfig({ BASE_URL: "http://trust.test", KV_PATH: ":memory:" });
  const blobs = createKvBlobStore(kv);
  const now = clock.now();
  const org = await createOrganization(kv, { name: "Acme", ownerUserId: "u1" }, now);
  const project = (slug: string, visibility: "public" | "private", hostedSubdomain?: string) =>
    createProject(kv, {
      organizationId: org.id,
      name: slug,
      slug,
      visibility,
      hostedSubdomain,
    }, { now, controls: catalogControls(now) });
  const acme = await project("acme", "public", "acme");
  const draft = await project("draft", "public");
  const hidden = await project("hidden", "private");
  const signingKey = await loadSigningKey(kv, "publications");
  const logKey = await loadSigningKey(kv, "log");
  const deps = { kv, blobs, clock, config, log: memoryLogger(), signingKey, logKey };
  const { publication } = await publishProject(deps, acme);
  await publishProject(deps, hidden);
  return {
    kv,
    blobs,
    config,
    artifacts: createArtifactCache(),
    orgSlug: org.slug,
    acme,
    draft,
    hidden,
    published: publication,
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  };
}
