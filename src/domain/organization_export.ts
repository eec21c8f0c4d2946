/**
 * The organization export's request (docs/lifecycle.md "Export and import").
 */
import { z } from "@hono/zod-openapi";

export const OrganizationExportQuery = z.object({
  include: z.enum(["log", "keys-and-log"]).optional().openapi({
    param: { name: "include", in: "query" },
    description:
      "log: also the publication log (every node hash, this organization's entries), so every version keeps its inclusion proof where the archive is imported (checkpoints are then signed by that instance's log key). keys-and-log: the log and the service's private publication and log signing keys, so that instance signs and logs as this one and pinned verifiers keep working. WARNING: the archive then holds private key material; anyone with it can sign as this service.",
  }),
});
export type OrganizationExportQuery = z.infer<typeof OrganizationExportQuery>;
