/**
 * The per-project setup guide: what a vendor's engineer, or an agent following it, runs to
 * connect a collector. Members read it for any project (GET /projects/{id}/setup.md and the
 * dashboard); anyone reads it for a public project (GET /trust/{projectSlug}/setup.md, a row of
 * the specification). It names the project id and a collector id, which are identifiers, not
 * credentials: the collector secret is never part of it.
 *
 * Every shell block runs as written with bash, curl and jq 1.6 or 1.7, and the GitHub Actions
 * workflow passes actionlint: tests/e2e/setup_guide_run_test.ts runs them against a live
 * service (docs/collector_setup.md).
 */
import type { Config } from "../config.ts";
import type { Collector } from "../domain/collector.ts";
import type { Project } from "../domain/workspace.ts";
import { listCollectorsByProject } from "../store/collectors.ts";
import { publicProject, type PublicReads } from "./public_read.ts";
import { githubWorkflow, gitlabJobs, type GuideIds } from "./setup_ci.ts";

/**
 * The guide of `project`, naming its most recently created active collector (the one a new
 * pipeline is most likely set up with), or a placeholder saying how to create one.
 */
export async function setupGuideOf(
  deps: { kv: Deno.Kv; config: Config },
  project: Project,
): Promise<string> {
  const collectors = await listCollectorsByProject(deps.kv, project.id);
  const collector = collectors.findLast((x) => x.status === "active") ?? null;
  return renderSetupGuide(deps.config, { project, collector });
}

/** The guide of the public project `slug`; the public reads' one 404 for a private or unknown one. */
export async function publicSetupGuide(
  deps: PublicReads & { config: Config },
  slug: string,
): Promise<string> {
  return await setupGuideOf(deps, await publicProject(deps, slug));
}

const RUN = "deno run --allow-net --allow-env --allow-read";

function renderSetupGuide(
  config: Config,
  { project, collector }: { project: Project; collector: Collector | null },
): string {
  const ids: GuideIds = {
    base: config.baseUrl,
    projectId: project.id,
    collectorId: collector?.id ?? "<COLLECTOR_ID>",
  };
  const { base, collectorId } = ids;
  const name = project.name.replace(/[\r\n]+/g, " ");
  return `# Set up evidence collection for ${name.replace(/([\\`*_[\]#<>|])/g, "\\$1")}

Project id: \`${project.id}\`
Project slug: \`${project.slug}\`
Collector id: \`${collectorId}\`${
    collector
      ? ""
      : " (no active collector yet: create one in the dashboard, under the project's Collectors, or with `POST /projects/{id}/collectors`, and use its id wherever this guide says `<COLLECTOR_ID>`)"
  }

The collector secret (\`tpc_…\`) is shown once, to the operator who creates or rotates the
collector. Keep it in your CI's secret store as \`TRUST_COLLECTOR_SECRET\`; it is never
part of this guide. Each command below reads it from that environment variable.

## With the collector CLI

It needs only Deno, runs from this service, and reads the secret from the environment.
\`help\` prints every option; it retries network errors, 429 and 5xx with the same request.
Run it where your build left its reports (here \`sbom.cdx.json\` and \`results/*.json\`):

\`\`\`sh
export TRUST_PROJECT_ID=${project.id}
export TRUST_COLLECTOR_ID=${collectorId}
# TRUST_COLLECTOR_SECRET comes from your CI's secret store.
${RUN} ${base}/collector.ts heartbeat
${RUN} ${base}/collector.ts evidence --type sbom sbom.cdx.json
${RUN} ${base}/collector.ts evidence --type policy_result results/*.json
\`\`\`

In GitHub Actions the source defaults to \`github_actions\` and
\`$GITHUB_REPOSITORY@$GITHUB_SHA\`; elsewhere pass \`--source-type\` and \`--source-ref\`.
Exit status: 0 sent; 1 refused; 2 usage or input error; 3 service unreachable after the
retries; 4 stored, but a document was not understood (its control stays unknown).

The same calls with curl and jq follow.

## 1. Prove the collector is alive

\`\`\`sh
curl -fsS -X POST ${base}/collectors/${collectorId}/heartbeat \\
  -H "Authorization: Bearer $TRUST_COLLECTOR_SECRET" \\
  -H "Content-Type: application/json" \\
  -d '{"sourceRef":"ci"}'
\`\`\`

## 2. Send evidence after each build

The record names where it comes from: the repository and commit in GitHub Actions, else
\`local@manual\` (change it to your own). The idempotency key, one per CI run attempt (or per shell
and second elsewhere), makes a retried call safe.

\`\`\`sh
jq -n --slurpfile sbom sbom.cdx.json \\
  --arg ref "\${GITHUB_REPOSITORY:-local}@\${GITHUB_SHA:-manual}" '{
  projectId: "${project.id}",
  evidenceType: "sbom",
  sourceType: "collector",
  sourceRef: $ref,
  observedAt: (now | todate),
  payload: $sbom[0]
}' | curl -fsS -X POST ${base}/ingest/evidence \\
  -H "Authorization: Bearer $TRUST_COLLECTOR_SECRET" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: sbom-\${GITHUB_RUN_ID:-local}-\${GITHUB_RUN_ATTEMPT:-$(date +%s)-$$}" \\
  --data-binary @-
\`\`\`

Evidence types: \`sbom\` (CycloneDX or SPDX JSON), \`vulnerability_scan\` (OSV-Scanner,
Grype, Trivy, or \`{"summary":{"critical":0,"high":0,"medium":0,"low":0}}\`),
\`build_provenance\` (in-toto SLSA provenance, bare or in a DSSE envelope),
\`dependency_inventory\`, \`deployment_snapshot\`, \`policy_result\` (including conftest and
OPA output). Up to 100 records go in one call to \`POST ${base}/ingest/evidence/batch\`.

## In GitHub Actions

Store the secret as the repository secret \`TRUST_COLLECTOR_SECRET\` (Settings → Secrets and
variables → Actions) and save this as \`.github/workflows/trust-evidence.yml\`. The heartbeat
runs every six hours (the heartbeat control wants one a day); after each push to \`main\` the
repository's SBOM is made with Syft and sent. Add your own reports the same way, after your
build steps.

\`\`\`yaml
${githubWorkflow(ids)}\`\`\`

## In GitLab CI

Store the secret as the CI/CD variable \`TRUST_COLLECTOR_SECRET\` (Settings → CI/CD →
Variables, masked and protected), add these jobs to \`.gitlab-ci.yml\`, and create a pipeline
schedule (Build → Pipeline schedules) every six hours for the heartbeat. The jobs run in the
\`.post\` stage, after your build and tests; a scheduled pipeline needs one of your own jobs
to run too, as GitLab refuses a pipeline of only \`.pre\` and \`.post\` jobs.

\`\`\`yaml
${gitlabJobs(ids)}\`\`\`

## 3. Check the result

- Trust page: ${base}/trust/${project.slug}
- Machine-readable: ${base}/trust/${project.slug}/trust.json (signature: \`trust.json.jws\`,
  keys: ${base}/.well-known/jwks.json)
- How states are decided: ${base}/docs/evaluation.md
`;
}
