/**
 * Framework mappings: which criteria of SOC 2, ISO/IEC 27001:2022 Annex A, NIST SSDF
 * (SP 800-218) and SLSA a control's evidence supports. Default catalog controls carry the
 * built-in mapping (src/evaluate/frameworks.ts); members map custom controls. Criterion ids
 * are the frameworks' own, titles are this service's short wording (docs/frameworks.md).
 */
import { z } from "@hono/zod-openapi";
import { DateTime, Uuid } from "./common.ts";
import { ControlState } from "./control.ts";

export const FRAMEWORK_IDS = ["soc2", "iso27001", "ssdf", "slsa"] as const;
export const FrameworkId = z.enum(FRAMEWORK_IDS).openapi("FrameworkId", {
  description:
    "soc2 (2017 Trust Services Criteria), iso27001 (ISO/IEC 27001:2022 Annex A), ssdf (NIST SP 800-218), slsa (SLSA v1.0 Build track)",
});
export type FrameworkId = z.infer<typeof FrameworkId>;

/** Most criteria one control may be mapped to. */
export const MAX_CRITERIA_PER_CONTROL = 40;

export const CriterionRef = z.strictObject({
  framework: FrameworkId,
  id: z.string().min(1).max(40).openapi({
    description: "The criterion's id in its framework (see GET /public/frameworks)",
    example: "A.8.8",
  }),
}).openapi("CriterionRef");
export type CriterionRef = z.infer<typeof CriterionRef>;

export const PutControlCriteriaRequest = z.strictObject({
  criteria: z.array(CriterionRef).max(MAX_CRITERIA_PER_CONTROL).openapi({
    description:
      `The whole mapping (replaces the previous one); at most ${MAX_CRITERIA_PER_CONTROL}, no repeats. [] removes it.`,
  }),
}).openapi("PutControlCriteriaRequest");
export type PutControlCriteriaRequest = z.infer<typeof PutControlCriteriaRequest>;

/** A custom control's mapping as stored (by control key, which never changes). */
export interface StoredControlCriteria {
  key: string;
  criteria: CriterionRef[];
  updatedAt: string;
  updatedBy: { userId: string; email: string | null };
}

export const ControlCriteria = z.object({
  controlId: Uuid,
  key: z.string(),
  publicName: z.string(),
  source: z.enum(["catalog", "custom"]).openapi({
    description:
      "catalog: the built-in mapping of a default control (fixed); custom: set by members",
  }),
  criteria: z.array(CriterionRef),
  updatedAt: DateTime.nullable().openapi({ description: "When a custom mapping last changed" }),
}).openapi("ControlCriteria");
export type ControlCriteria = z.infer<typeof ControlCriteria>;

export const ControlCriteriaResponse = z.object({ mapping: ControlCriteria })
  .openapi("ControlCriteriaResponse");
export const ControlCriteriaListResponse = z.object({ mappings: z.array(ControlCriteria) })
  .openapi("ControlCriteriaListResponse");

const CatalogCriterion = z.object({ id: z.string(), title: z.string() });

export const FrameworkCatalog = z.object({
  frameworks: z.array(z.object({
    id: FrameworkId,
    name: z.string(),
    edition: z.string(),
    criteria: z.array(CatalogCriterion).openapi({
      description: "Every criterion id accepted in a mapping, with this service's short wording",
    }),
  })),
  catalogMappings: z.array(z.object({ key: z.string(), criteria: z.array(CriterionRef) }))
    .openapi({ description: "The criteria each default catalog control supports" }),
  notice: z.string(),
}).openapi("FrameworkCatalog");
export type FrameworkCatalog = z.infer<typeof FrameworkCatalog>;

/** One published control under a criterion. */
export const FrameworkControl = z.object({
  key: z.string(),
  name: z.string(),
  state: ControlState,
  evidenceObservedAt: DateTime.nullable().openapi({
    description: "When the evidence the state was decided from was observed",
  }),
  freshUntil: DateTime.nullable(),
});
export type FrameworkControl = z.infer<typeof FrameworkControl>;

export const PublicFrameworkView = z.object({
  project: z.object({ slug: z.string(), name: z.string() }),
  version: z.int().min(1),
  publishedAt: DateTime,
  frameworks: z.array(z.object({
    id: FrameworkId,
    name: z.string(),
    edition: z.string(),
    criteriaMapped: z.int().min(0),
    criteriaPassing: z.int().min(0).openapi({
      description: "Mapped criteria whose every control passes",
    }),
    criteria: z.array(z.object({
      id: z.string(),
      title: z.string(),
      controls: z.array(FrameworkControl),
    })).openapi({ description: "Only criteria at least one published control supports" }),
  })),
  notice: z.string(),
  url: z.url(),
}).openapi("PublicFrameworkView");
export type PublicFrameworkView = z.infer<typeof PublicFrameworkView>;
