/**
 * Differential proof over every mutating operation of /openapi.json in group "organization"
 * (tests/differential/_operations.ts).
 */
import { runGroup } from "./_group.ts";

Deno.test("[differential] organization operations leave stored pages and indexes as a fresh computation", async () => {
  await runGroup("organization");
});
