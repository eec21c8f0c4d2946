/**
 * What FRR-ADS-01 and AC-01 ask beyond the offering itself (docs/ads.md): the "How to get access"
 * page generated from the organization's settings, and the machine-readable document that holds
 * everything at once.
 */
import { z } from "@hono/zod-openapi";
import { Offering, SupportContact } from "./offering.ts";
import { PublicStatus } from "./public_status.ts";
import { Vendor } from "./vendor.ts";

/** "How to get access" (FRR-ADS-AC-01): generated from the organization's actual settings. */
export const AccessGuide = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  publicDocuments: z.int().min(0).openapi({ description: "Documents anyone can download" }),
  restrictedDocuments: z.int().min(0).openapi({
    description: "Documents shared on request (listed by title only)",
  }),
  ndaRequired: z.boolean().openapi({
    description:
      "Whether a request needs the NDA accepted (restricted documents are requestable only then)",
  }),
  ndaVersion: z.int().min(1).nullable(),
  autoApproval: z.boolean().openapi({
    description:
      "Whether requests from some work-email domains are approved at once (the domains are not published)",
  }),
  emailDelivery: z.boolean().openapi({
    description: "Whether this service emails the access link itself",
  }),
  linkDays: z.int().min(1).openapi({ description: "Days an access link lasts" }),
  buyerPageUrl: z.url().nullable().openapi({
    description:
      "The buyer page, where a person signs in with their work email and asks for documents on behalf of their organization; null while it cannot be used (no requestable documents, or this service sends no email)",
  }),
  buyerOrganizationsLetIn: z.boolean().openapi({
    description:
      "Whether some restricted document opens at once to every existing buyer organization (which organizations those are is not published)",
  }),
  steps: z.array(z.string()).openapi({
    description: "The page's steps, in the order a buyer follows them, in plain words",
  }),
  vendorNote: z.string().nullable().openapi({ description: "The vendor's own words on access" }),
  supportContacts: z.array(SupportContact),
  documentsUrl: z.url(),
  requestFormUrl: z.url().nullable().openapi({
    description: "The access-request form; null while restricted documents cannot be requested",
  }),
  url: z.url().openapi({ description: "This page" }),
  trustCenterUrl: z.url(),
}).openapi("AccessGuide");
export type AccessGuide = z.infer<typeof AccessGuide>;

/** The plain-language steps of getting access, from the settings alone. */
export function accessSteps(
  guide: Omit<
    AccessGuide,
    "steps" | "organization" | "vendorNote" | "supportContacts" | "url" | "trustCenterUrl"
  >,
  vendor: string,
): string[] {
  const steps: string[] = [];
  if (guide.publicDocuments > 0) {
    steps.push(
      `${guide.publicDocuments} ${
        guide.publicDocuments === 1 ? "document is" : "documents are"
      } public: download ${
        guide.publicDocuments === 1 ? "it" : "them"
      } from the documents page, no sign-up and no approval.`,
    );
  }
  if (guide.restrictedDocuments === 0) {
    steps.push(`${vendor} shares no restricted documents here: there is nothing to request.`);
    return steps;
  }
  if (!guide.requestFormUrl) {
    steps.push(
      `${guide.restrictedDocuments} restricted ${
        guide.restrictedDocuments === 1 ? "document is" : "documents are"
      } listed by title, but cannot be requested here yet (${vendor} has not set an NDA): ask ${vendor}'s support contact.`,
    );
    return steps;
  }
  steps.push(
    `Open the request form, give your name, your work email and your company, and choose the restricted documents you need.`,
  );
  if (guide.ndaRequired) {
    steps.push(
      `Read and accept ${vendor}'s NDA (version ${guide.ndaVersion}); the form shows its full text, and your acceptance is recorded with the request.`,
    );
  }
  steps.push(
    guide.autoApproval
      ? `If your work email is at a domain ${vendor} approves automatically, your request is approved at once; otherwise ${vendor} reviews it.`
      : `${vendor} reviews each request and approves or denies it.`,
  );
  steps.push(
    guide.emailDelivery
      ? `Once approved, a personal link is emailed to you; it opens the documents you asked for and lasts ${guide.linkDays} days.`
      : `Once approved, ${vendor} sends you a personal link; it opens the documents you asked for and lasts ${guide.linkDays} days.`,
  );
  steps.push(
    `Each download is recorded with your email address, and ${vendor} can revoke the link at any time.`,
  );
  if (guide.buyerPageUrl) steps.push(...buyerOrganizationSteps(guide, vendor));
  return steps;
}

/** How buyer organizations work, in plain words (docs/ads.md). */
function buyerOrganizationSteps(
  guide: Pick<AccessGuide, "buyerOrganizationsLetIn">,
  vendor: string,
): string[] {
  return [
    `Instead of a personal link, you can sign in on the buyer page with your work email and ask there: approval is then given to your organization (the people of your email domain), not to you alone, so your colleagues read what it was granted without asking again, until the approval ends.`,
    `The first person of an organization to sign in becomes its admin. Admins add and remove colleagues, and create read-only service tokens that let the organization's tools fetch the approved documents.`,
    `${vendor} does not disclose which organizations already have access: that stays private. If yours has, you are let in at once when you sign in, with nothing to ask.${
      guide.buyerOrganizationsLetIn
        ? ` Some documents also open at once to every organization that has signed in here before.`
        : ""
    }`,
  ];
}

/**
 * GET /public/trust/{orgSlug}/ads.json: everything FRR-ADS-01 lists, in one machine-readable
 * document a buyer's tool can fetch: the offering, the vendor and its contacts, how to get access
 * and the trust center's status, with the human-readable pages it matches.
 */
export const AdsDocument = z.object({
  kind: z.literal("ads-offering"),
  version: z.literal(1),
  organization: z.object({ name: z.string(), slug: z.string() }),
  vendor: Vendor.nullable(),
  offering: Offering,
  updatedAt: z.string().nullable().openapi({ description: "When the profile last changed" }),
  access: AccessGuide,
  status: PublicStatus,
  urls: z.object({
    trustCenter: z.url(),
    html: z.url(),
    markdown: z.url(),
    access: z.url(),
    status: z.url(),
    documents: z.url(),
  }),
}).openapi("AdsDocument");
export type AdsDocument = z.infer<typeof AdsDocument>;
