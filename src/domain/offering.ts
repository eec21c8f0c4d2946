/**
 * The cloud service offering as FedRAMP's Authorization Data Sharing process asks a provider to
 * describe it publicly (FRR-ADS-01, the service list of FRR-ADS-03; docs/ads.md): service and
 * deployment model, business category, UEI, the FedRAMP Marketplace link, the services with their
 * impact levels, customer responsibilities, the process for getting access and the support
 * contacts. Part of the organization's profile, edited by owners; the trust center renders it into
 * HTML, Markdown and JSON, and `/public/trust/{orgSlug}/ads.json` serves it alone, all from the
 * one stored record (FRR-ADS-02).
 */
import { z } from "@hono/zod-openapi";
import { oneLine } from "./common.ts";
import { HttpsUrl, plainText } from "./text_fields.ts";

export const MAX_OFFERING_SERVICES = 100;
export const MAX_SUPPORT_CONTACTS = 10;
export const MAX_RESPONSIBILITIES_LENGTH = 5000;
export const MAX_ACCESS_PROCESS_LENGTH = 2000;
export const MAX_SERVICE_DESCRIPTION_LENGTH = 500;

export const SERVICE_MODELS = ["iaas", "paas", "saas"] as const;
export const DEPLOYMENT_MODELS = [
  "public-cloud",
  "private-cloud",
  "government-community-cloud",
  "hybrid-cloud",
] as const;
export const IMPACT_LEVELS = ["li-saas", "low", "moderate", "high"] as const;

/** How each value is written on the pages (FedRAMP's own names). */
export const SERVICE_MODEL_LABELS: Record<(typeof SERVICE_MODELS)[number], string> = {
  iaas: "Infrastructure as a Service (IaaS)",
  paas: "Platform as a Service (PaaS)",
  saas: "Software as a Service (SaaS)",
};
export const DEPLOYMENT_MODEL_LABELS: Record<(typeof DEPLOYMENT_MODELS)[number], string> = {
  "public-cloud": "Public cloud",
  "private-cloud": "Private cloud",
  "government-community-cloud": "Government-only community cloud",
  "hybrid-cloud": "Hybrid cloud",
};
export const IMPACT_LEVEL_LABELS: Record<(typeof IMPACT_LEVELS)[number], string> = {
  "li-saas": "Low (LI-SaaS)",
  low: "Low",
  moderate: "Moderate",
  high: "High",
};

export const ServiceModel = z.enum(SERVICE_MODELS).openapi({
  description: "FedRAMP's service models: IaaS, PaaS or SaaS",
});
export const DeploymentModel = z.enum(DEPLOYMENT_MODELS).openapi({
  description: "FedRAMP's deployment models",
});
export const ImpactLevel = z.enum(IMPACT_LEVELS).openapi({
  description: "The FedRAMP impact level (security objectives) the service is offered at",
});

/** A Unique Entity ID (SAM.gov): 12 characters, capital letters and digits. */
const Uei = z.string().trim().max(12).toUpperCase().regex(
  /^[A-Z0-9]{12}$/,
  "Must be a 12-character Unique Entity ID (SAM.gov), letters and digits",
);
const Day = z.string().max(10).regex(/^\d{4}-\d{2}-\d{2}$/, "Must be a date as YYYY-MM-DD").refine(
  (day) =>
    !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) &&
    new Date(`${day}T00:00:00Z`).toISOString().startsWith(day),
  "Must be a real date",
);

export const OfferingService = z.strictObject({
  name: oneLine(200),
  description: plainText(MAX_SERVICE_DESCRIPTION_LENGTH).nullable().default(null),
  impactLevel: ImpactLevel.nullable().default(null),
}).openapi("OfferingService");
export type OfferingService = z.infer<typeof OfferingService>;

export const SupportContact = z.strictObject({
  label: oneLine(100).openapi({ example: "Customer support" }),
  email: z.email().max(254).nullable().default(null),
  url: HttpsUrl.nullable().default(null),
  phone: z.string().trim().max(40).regex(/^\+?[0-9 ().-]{3,40}$/, "Must be a phone number")
    .nullable().default(null),
}).refine((c) => c.email !== null || c.url !== null || c.phone !== null, {
  message: "Give at least one of email, url or phone",
}).openapi("SupportContact");
export type SupportContact = z.infer<typeof SupportContact>;

/** The offering as stored and shown: every field null or empty until an owner sets it. */
export const Offering = z.object({
  marketplaceUrl: z.string().nullable().openapi({
    description: "The offering's FedRAMP Marketplace page",
  }),
  serviceModel: ServiceModel.nullable(),
  deploymentModel: DeploymentModel.nullable(),
  businessCategory: z.string().nullable(),
  uei: z.string().nullable().openapi({ description: "Unique Entity ID (SAM.gov)" }),
  services: z.array(OfferingService).openapi({
    description: "The detailed list of services and their impact levels (FRR-ADS-03)",
  }),
  customerResponsibilities: z.string().nullable().openapi({
    description: "Summary of customer responsibilities, plain text",
  }),
  secureConfigurationUrl: z.string().nullable().openapi({
    description: "Secure configuration guidance for customers",
  }),
  accessProcess: z.string().nullable().openapi({
    description:
      "The vendor's own words on getting access, shown with the generated access page's steps",
  }),
  supportContacts: z.array(SupportContact).openapi({
    description: "Customer support for the trust center and the offering",
  }),
  nextOngoingAuthorizationReport: z.string().nullable().openapi({
    description: "Date of the next Ongoing Authorization Report, YYYY-MM-DD",
  }),
}).openapi("Offering");
export type Offering = z.infer<typeof Offering>;

/** A change to the offering: fields left out are kept, null clears one, lists are replaced. */
export const UpdateOfferingRequest = z.strictObject({
  marketplaceUrl: HttpsUrl.nullable().optional(),
  serviceModel: ServiceModel.nullable().optional(),
  deploymentModel: DeploymentModel.nullable().optional(),
  businessCategory: oneLine(200).nullable().optional(),
  uei: Uei.nullable().optional(),
  services: z.array(OfferingService).max(MAX_OFFERING_SERVICES).optional(),
  customerResponsibilities: plainText(MAX_RESPONSIBILITIES_LENGTH).nullable().optional(),
  secureConfigurationUrl: HttpsUrl.nullable().optional(),
  accessProcess: plainText(MAX_ACCESS_PROCESS_LENGTH).nullable().optional(),
  supportContacts: z.array(SupportContact).max(MAX_SUPPORT_CONTACTS).optional(),
  nextOngoingAuthorizationReport: Day.nullable().optional(),
}).openapi("UpdateOfferingRequest");
export type UpdateOfferingRequest = z.infer<typeof UpdateOfferingRequest>;

export function emptyOffering(): Offering {
  return {
    marketplaceUrl: null,
    serviceModel: null,
    deploymentModel: null,
    businessCategory: null,
    uei: null,
    services: [],
    customerResponsibilities: null,
    secureConfigurationUrl: null,
    accessProcess: null,
    supportContacts: [],
    nextOngoingAuthorizationReport: null,
  };
}

/** `current` with the fields present in `change` applied (empty text clears a field). */
export function mergeOffering(current: Offering, change: UpdateOfferingRequest): Offering {
  const next: Offering = { ...current };
  for (const [key, value] of Object.entries(change) as [keyof Offering, unknown][]) {
    if (value === undefined) continue;
    (next as Record<string, unknown>)[key] = value === "" ? null : value;
  }
  return next;
}

/** Whether anything of the offering is set. */
export function offeringIsSet(offering: Offering): boolean {
  return Object.values(offering).some((v) => Array.isArray(v) ? v.length > 0 : v !== null);
}

/**
 * The offering as facts in page order, each a label and its text: the one list the HTML and
 * the Markdown render (and the contract test reads back), so the two cannot drift apart.
 */
export function offeringFacts(offering: Offering): [field: string, label: string, text: string][] {
  const facts: [string, string, string][] = [];
  const add = (field: string, label: string, text: string | null) => {
    if (text !== null) facts.push([field, label, text]);
  };
  add(
    "serviceModel",
    "Service model",
    offering.serviceModel && SERVICE_MODEL_LABELS[offering.serviceModel],
  );
  add(
    "deploymentModel",
    "Deployment model",
    offering.deploymentModel && DEPLOYMENT_MODEL_LABELS[offering.deploymentModel],
  );
  add("businessCategory", "Business category", offering.businessCategory);
  add("uei", "UEI", offering.uei);
  add("marketplaceUrl", "FedRAMP Marketplace", offering.marketplaceUrl);
  add(
    "nextOngoingAuthorizationReport",
    "Next Ongoing Authorization Report",
    offering.nextOngoingAuthorizationReport,
  );
  add("secureConfigurationUrl", "Secure configuration guide", offering.secureConfigurationUrl);
  return facts;
}
