/**
 * The CI files of the setup guide: a GitHub Actions workflow and GitLab CI jobs that send a
 * heartbeat on a schedule and evidence after the build, with the secret taken from the CI's
 * secret store. Their commands are the collector CLI's, so the CLI's retries and exit
 * statuses apply.
 */
/** What the CI files fill in. */
export interface GuideIds {
  base: string;
  projectId: string;
  collectorId: string;
}

const RUN = "deno run --allow-net --allow-env --allow-read";

/** `.github/workflows/trust-evidence.yml`; it passes actionlint (tests/e2e). */
export function githubWorkflow({ base, projectId, collectorId }: GuideIds): string {
  return `name: Trust evidence

on:
  push:
    branches: [main]
  schedule:
    - cron: "23 */6 * * *"
  workflow_dispatch:

permissions:
  contents: read

env:
  TRUST_PROJECT_ID: ${projectId}
  TRUST_COLLECTOR_ID: ${collectorId}
  TRUST_COLLECTOR: ${base}/collector.ts

jobs:
  heartbeat:
    runs-on: ubuntu-latest
    steps:
      - uses: denoland/setup-deno@v2
        with:
          deno-version: v2.x
      - name: Heartbeat
        env:
          TRUST_COLLECTOR_SECRET: \${{ secrets.TRUST_COLLECTOR_SECRET }}
        run: ${RUN} "$TRUST_COLLECTOR" heartbeat

  evidence:
    if: github.event_name != 'schedule'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      # Your build and test steps go here; the evidence describes what they built.
      - name: SBOM of the repository
        uses: anchore/sbom-action@v0
        with:
          format: cyclonedx-json
          output-file: sbom.cdx.json
          upload-artifact: false
      - uses: denoland/setup-deno@v2
        with:
          deno-version: v2.x
      - name: Send the SBOM
        env:
          TRUST_COLLECTOR_SECRET: \${{ secrets.TRUST_COLLECTOR_SECRET }}
        run: ${RUN} "$TRUST_COLLECTOR" evidence --type sbom sbom.cdx.json
`;
}

/** Jobs to add to `.gitlab-ci.yml`. */
export function gitlabJobs({ base, projectId, collectorId }: GuideIds): string {
  return `variables:
  TRUST_PROJECT_ID: "${projectId}"
  TRUST_COLLECTOR_ID: "${collectorId}"
  TRUST_COLLECTOR: "${base}/collector.ts"

trust-heartbeat:
  stage: .post
  image:
    name: denoland/deno:latest
    entrypoint: [""]
  script:
    - ${RUN} "$TRUST_COLLECTOR" heartbeat

trust-sbom:
  stage: .post
  image:
    name: anchore/syft:debug
    entrypoint: [""]
  rules:
    - if: $CI_PIPELINE_SOURCE != "schedule"
  script:
    - /syft scan dir:. -o cyclonedx-json=sbom.cdx.json
  artifacts:
    paths: [sbom.cdx.json]
    expire_in: 1 day

trust-evidence:
  stage: .post
  image:
    name: denoland/deno:latest
    entrypoint: [""]
  needs: [trust-sbom]
  rules:
    - if: $CI_PIPELINE_SOURCE != "schedule"
  script:
    - ${RUN} "$TRUST_COLLECTOR" evidence --type sbom --source-ref "$CI_PROJECT_PATH@$CI_COMMIT_SHA" sbom.cdx.json
`;
}
