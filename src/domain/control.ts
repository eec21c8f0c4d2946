/**
 * Trust controls and their evaluations (SPEC.md "TrustControl",
 * "ControlEvaluationSummary"; DESIGN.md §8).
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";

export const EvidenceType = z.enum([
  "build_provenance",
  "dependency_inventory",
  "deployment_snapshot",
  "policy_result",
  "sbom",
  "vulnerability_scan",
]);
export type EvidenceType = z.infer<typeof EvidenceType>;

export const ControlCategory = z.enum(["collector", "evidence"]);
export type ControlCategory = z.infer<typeof ControlCategory>;

export const ControlState = z.enum(["unknown", "pass", "fail", "stale", "degraded"]);
export type ControlState = z.infer<typeof ControlState>;

export const FreshnessPolicy = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("none") }),
  z.strictObject({ kind: z.literal("time_window"), windowSeconds: z.int().min(1) }),
]).openapi("FreshnessPolicy");
export type FreshnessPolicy = z.infer<typeof FreshnessPolicy>;

const Threshold = z.int().min(0).nullable();

export const DegradationPolicy = z.strictObject({
  staleAfterSeconds: Threshold,
  degradedAfterSeconds: Threshold,
}).refine(
  (p) =>
    p.staleAfterSeconds === null || p.degradedAfterSeconds === null ||
    p.degradedAfterSeconds <= p.staleAfterSeconds,
  {
    message: "degradedAfterSeconds must not exceed staleAfterSeconds",
    path: ["degradedAfterSeconds"],
  },
).openapi("DegradationPolicy");
export type DegradationPolicy = z.infer<typeof DegradationPolicy>;

export const RuleOp = z.enum(["eq", "ne", "lt", "lte", "gt", "gte", "exists", "truthy"]);
export const ControlRule = z.strictObject({
  path: z.string().min(1).max(200).openapi({
    description: "Dot-separated path into the latest payload, e.g. `summary.critical`",
  }),
  op: RuleOp,
  value: z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]).optional(),
}).refine((r) => ["exists", "truthy"].includes(r.op) || r.value !== undefined, {
  message: "A value is required for this op",
  path: ["value"],
}).refine((r) => !["lt", "lte", "gt", "gte"].includes(r.op) || typeof r.value === "number", {
  message: "lt, lte, gt and gte compare with a number",
  path: ["value"],
}).openapi("ControlRule");
export type ControlRule = z.infer<typeof ControlRule>;

export const TrustControl = z.object({
  id: Uuid,
  key: z.string(),
  category: ControlCategory,
  publicName: z.string(),
  freshnessPolicyJson: FreshnessPolicy,
  degradationPolicyJson: DegradationPolicy,
  enabled: z.boolean(),
  createdAt: DateTime,
  evidenceType: EvidenceType.nullable().openapi({
    description: "Evidence stream the control reads; null for collector controls",
  }),
  rule: ControlRule.nullable(),
  // Addition to SPEC.md's fields (controls stored before it read as false).
  required: z.boolean().openapi({
    description:
      'Whether the vendor marks the control required: a required control that has not reported makes the published headline\'s verdict `unknown` ("Not reported: <name> (required)"); a control neither reported nor required does not change the verdict. Recorded in each version at publication (docs/first_screen.md)',
  }),
}).openapi("TrustControl");
export type TrustControl = z.infer<typeof TrustControl>;

export const TrustControlListResponse = z.object({ controls: z.array(TrustControl) })
  .openapi("TrustControlListResponse");

export const TrustControlResponse = z.object({ control: TrustControl })
  .openapi("TrustControlResponse");

/**
 * Controls one project can have, default catalog and disabled ones included. Recompute and
 * publish work at any count up to it; the cap keeps one project's recompute, published
 * documents and version history to a size readers can take.
 */
export const MAX_CONTROLS_PER_PROJECT = 500;

export const CreateControlRequest = z.strictObject({
  key: z.string().max(70).regex(
    /^custom\.[a-z0-9][a-z0-9_.-]{0,62}$/,
    'Custom control keys are "custom." followed by lowercase letters, digits, ".", "_" or "-"',
  ),
  publicName: oneLine(200),
  evidenceType: EvidenceType,
  rule: ControlRule.nullable().optional(),
  freshnessPolicyJson: FreshnessPolicy.optional(),
  degradationPolicyJson: DegradationPolicy.optional(),
  enabled: z.boolean().optional(),
  required: z.boolean().optional().openapi({
    description: "Mark the control required (default false); see TrustControl.required",
  }),
}).openapi("CreateControlRequest");
export type CreateControlRequest = z.infer<typeof CreateControlRequest>;

export const UpdateControlRequest = z.strictObject({
  enabled: z.boolean().optional(),
  publicName: oneLine(200).optional(),
  freshnessPolicyJson: FreshnessPolicy.optional(),
  degradationPolicyJson: DegradationPolicy.optional(),
  rule: ControlRule.nullable().optional(),
  required: z.boolean().optional().openapi({
    description:
      "Mark or unmark the control required; the published pages follow at the next version",
  }),
}).openapi("UpdateControlRequest");
export type UpdateControlRequest = z.infer<typeof UpdateControlRequest>;
