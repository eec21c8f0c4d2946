/**
 * The "certification" jobs (staged by src/store/certifications.ts with each change to a
 * certification, and at an achieved one's expiry): records an expiry that has come, then asks
 * each project the claim concerns that publishes automatically for a new version, which is
 * made only if what it declares (or a control's state) differs from its latest version's. A
 * job runs at least once; running it again records nothing new and publishes nothing new.
 */
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import type { JobWorker } from "../live/worker.ts";
import { type CertificationMessage, recordExpiry } from "../store/certifications.ts";
import { getProject, listProjectsByOrganization } from "../store/projects.ts";

export interface CertificationJobDeps {
  kv: Deno.Kv;
  clock: Clock;
  jobs: JobWorker;
  /** Publishes a project's next version only if something it shows changed. */
  publishIfChanged: (project: Project) => Promise<unknown>;
}

/** The projects a claim in `scopes` concerns (null: every project of the organization). */
async function projectsOf(
  kv: Deno.Kv,
  organizationId: string,
  scopes: readonly (string | null)[],
): Promise<Project[]> {
  if (scopes.includes(null)) return await listProjectsByOrganization(kv, organizationId);
  const found = await Promise.all(scopes.map((id) => getProject(kv, id!)));
  return found.filter((p): p is Project => p !== null && p.organizationId === organizationId);
}

/** Registers the handler of "certification" jobs. */
export function registerCertificationJobs(deps: CertificationJobDeps): void {
  deps.jobs.on("certification", async (message) => {
    const { organizationId, certificationId, scopes } = message as CertificationMessage;
    if (typeof organizationId !== "string" || typeof certificationId !== "string") return;
    if (!Array.isArray(scopes)) return;
    await recordExpiry(deps.kv, organizationId, { id: certificationId, now: deps.clock.now() });
    for (const project of await projectsOf(deps.kv, organizationId, scopes)) {
      if (project.autoPublish) await deps.publishIfChanged(project);
    }
  });
}
