/**
 * Differential proof over every mutating operation of /openapi.json in group "access"
 * (tests/differential/_operations_access.ts): the vendor's access rules and settings, a buyer
 * organization's operations, and personal access tokens.
 */
import { runGroup } from "./_group.ts";

Deno.test("[differential] access operations leave stored pages and indexes as a fresh computation", async () => {
  await runGroup("access");
});
