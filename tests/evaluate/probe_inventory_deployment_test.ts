import { isDeploymentHealthy, listsDependencies } from "../../src/evaluate/mod.ts";
import { CYCLONEDX_15, NPM_LOCKFILE_V3 } from "./_fixtures.ts";
import { probeTable } from "./_table.ts";

Deno.test("[evaluate] listsDependencies() reads package lists and maps", async (t) => {
  await probeTable(t, listsDependencies, [
    {
      name: "passes a packages[] list",
      input: { packages: [{ name: "hono", version: "4.6.3", ecosystem: "npm" }] },
      expected: { outcome: "pass", reason: /^Inventory lists 1 package in packages$/ },
    },
    {
      name: "passes an npm lockfile v3 without counting its root entry",
      input: NPM_LOCKFILE_V3,
      expected: { outcome: "pass", reason: /^Inventory lists 1 package in packages$/ },
    },
    {
      name: "passes a package.json dependencies map",
      input: { name: "acme-api", dependencies: { hono: "^4.6.3", zod: "^3.23.8" } },
      expected: { outcome: "pass", reason: /2 packages in dependencies/ },
    },
    {
      name: "passes a CycloneDX components[] list",
      input: CYCLONEDX_15,
      expected: { outcome: "pass", reason: /2 packages in components/ },
    },
    {
      name: "does not count a CycloneDX dependency graph as packages",
      input: { ...CYCLONEDX_15, components: [] },
      expected: { outcome: "fail", reason: /lists no package/ },
    },
    {
      name: "reads the next field when the first is empty",
      input: { packages: [], dependencies: ["hono"] },
      expected: { outcome: "pass", reason: /1 package in dependencies/ },
    },
    {
      name: "fails an empty list",
      input: { packages: [] },
      expected: { outcome: "fail", reason: /^Inventory lists no package$/ },
    },
    {
      name: "fails a lockfile with only its root entry",
      input: { ...NPM_LOCKFILE_V3, packages: { "": { name: "acme-api" } } },
      expected: { outcome: "fail", reason: /lists no package/ },
    },
    {
      name: "is unknown for a list field that is a string",
      input: { packages: "hono,zod" },
      expected: { outcome: "unknown", reason: /packages is neither a list nor a map/ },
    },
    {
      name: "is unknown without any list field",
      input: { name: "acme-api" },
      expected: { outcome: "unknown", reason: /no packages, dependencies or components field/ },
    },
  ]);
});

Deno.test("[evaluate] isDeploymentHealthy() reads health signals", async (t) => {
  await probeTable(t, isDeploymentHealthy, [
    {
      name: "passes healthy services",
      input: {
        environment: "production",
        status: "healthy",
        services: [
          { name: "api", healthy: true, replicas: 3, readyReplicas: 3 },
          { name: "worker", status: "running" },
        ],
      },
      expected: { outcome: "pass", reason: /^Snapshot reports 2 services or workloads healthy$/ },
    },
    {
      name: "passes a bare healthy: true",
      input: { healthy: true },
      expected: { outcome: "pass", reason: /^Snapshot reports itself healthy$/ },
    },
    {
      name: "passes a status that is not an unhealthy word",
      input: { status: "Running" },
      expected: { outcome: "pass", reason: /itself healthy/ },
    },
    {
      name: "fails healthy: false",
      input: { healthy: false, services: [] },
      expected: { outcome: "fail", reason: /itself unhealthy \(healthy: false\)/ },
    },
    {
      name: "fails a status of Degraded, any case",
      input: { status: "Degraded" },
      expected: { outcome: "fail", reason: /itself degraded \(status\)/ },
    },
    {
      name: "fails a down service",
      input: { status: "ok", services: [{ name: "api", status: "DOWN" }] },
      expected: { outcome: "fail", reason: /^services\[0\] "api" is down \(status\)$/ },
    },
    {
      name: "fails a Kubernetes workload with missing ready replicas",
      input: {
        cluster: "prod-eu-1",
        workloads: [
          { kind: "Deployment", name: "api", replicas: 3, readyReplicas: 3 },
          { kind: "Deployment", name: "worker", replicas: 2 },
        ],
      },
      expected: { outcome: "fail", reason: /workloads\[1\] "worker" is not ready \(0 of 2/ },
    },
    {
      name: "is unknown for an empty object",
      input: {},
      expected: { outcome: "unknown", reason: /no healthy, status, services\[\] or workloads\[\]/ },
    },
    {
      name: "is unknown for a snapshot that only lists non-objects",
      input: { services: ["api", 3] },
      expected: { outcome: "unknown", reason: /no healthy, status/ },
    },
  ]);
});
