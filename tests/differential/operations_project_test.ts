/**
 * Differential proof over every mutating operation of /openapi.json on one project's data
 * (tests/differential/_operations.ts, group "project").
 */
import { runGroup } from "./_group.ts";

Deno.test("[differential] project operations leave stored pages and indexes as a fresh computation", async () => {
  await runGroup("project");
});
