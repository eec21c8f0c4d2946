/**
 * Who the vendor is: an organization's public profile (display name, description, website,
 * logo, security contact, brand colour), and the `vendor` block trust.json and the trust
 * center show from it. Everything here is public once a project publishes.
 */
import { z } from "@hono/zod-openapi";
import { contrastRatio, HEX_COLOR, MIN_TEXT_CONTRAST } from "../lib/contrast.ts";
import { IMAGE_TYPES } from "../lib/image_type.ts";
import { DateTime, oneLine, Uuid } from "./common.ts";
import { HttpsUrl, plainText } from "./text_fields.ts";
import { emptyOffering, Offering, UpdateOfferingRequest } from "./offering.ts";

export { HttpsUrl, plainText };

/** Longest description, in characters. */
export const MAX_DESCRIPTION_LENGTH = 500;
/** Largest logo, in bytes. */
export const MAX_LOGO_BYTES = 256 * 1024;
/**
 * Largest logo width and height, in pixels, as the image header declares them: a browser
 * decodes a logo to about 4 bytes per pixel, so 4096 × 4096 costs a visitor at most 64 MiB.
 */
export const MAX_LOGO_PIXELS = 4096;
/** The text colour the brand colour is a background for, everywhere it is shown. */
export const BRAND_TEXT_COLOR = "#ffffff";

export const BrandColor = z.string().max(7).regex(HEX_COLOR, "Must be #rrggbb").refine(
  (color) => !HEX_COLOR.test(color) || contrastRatio(color, BRAND_TEXT_COLOR) >= MIN_TEXT_CONTRAST,
  {
    message: `White text on this colour does not reach the ${MIN_TEXT_CONTRAST}:1 contrast ` +
      "WCAG asks of text; choose a darker colour",
  },
).openapi({
  description:
    `#rrggbb, used as the background of white text: its WCAG contrast against ${BRAND_TEXT_COLOR} must be at least ${MIN_TEXT_CONTRAST}:1`,
  example: "#1d4ed8",
});

export const SecurityContact = z.object({
  email: z.email().max(254).nullable(),
  url: HttpsUrl.nullable(),
}).openapi("SecurityContact");

export const OrganizationLogo = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  contentType: z.enum(["image/png", "image/jpeg", "image/webp"]),
  size: z.int().min(1).max(MAX_LOGO_BYTES),
  url: z.url().openapi({ description: "Public, immutable URL of the image" }),
}).openapi("OrganizationLogo");
export type OrganizationLogo = z.infer<typeof OrganizationLogo>;

export const OrganizationProfile = z.object({
  organizationId: Uuid,
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  website: z.string().nullable(),
  logo: OrganizationLogo.nullable(),
  securityContact: SecurityContact,
  brandColor: z.string().nullable(),
  offering: Offering.openapi({
    description:
      "The cloud service offering as FedRAMP's Authorization Data Sharing process asks it described (docs/ads.md)",
  }),
  updatedAt: DateTime.nullable().openapi({ description: "null until the profile is first set" }),
}).openapi("OrganizationProfile");
export type OrganizationProfile = z.infer<typeof OrganizationProfile>;

export const OrganizationProfileResponse = z.object({ profile: OrganizationProfile })
  .openapi("OrganizationProfileResponse");

export const UpdateOrganizationProfileRequest = z.strictObject({
  displayName: oneLine(200).nullable().optional(),
  description: plainText(MAX_DESCRIPTION_LENGTH).nullable().optional(),
  website: HttpsUrl.nullable().optional(),
  securityContact: z.strictObject({
    email: z.email().max(254).nullable().optional(),
    url: HttpsUrl.nullable().optional(),
  }).optional(),
  brandColor: BrandColor.nullable().optional(),
  offering: UpdateOfferingRequest.optional(),
}).openapi("UpdateOrganizationProfileRequest");
export type UpdateOrganizationProfileRequest = z.infer<typeof UpdateOrganizationProfileRequest>;

/** The vendor as trust.json and the trust center show it (every field may be null). */
export const Vendor = z.object({
  name: z.string().nullable(),
  description: z.string().nullable(),
  website: z.string().nullable(),
  logoUrl: z.string().nullable(),
  securityContact: z.object({ email: z.string().nullable(), url: z.string().nullable() }),
  brandColor: z.string().nullable(),
}).openapi("Vendor", {
  description: "Who publishes this profile, from the organization's profile at publication time",
});
export type Vendor = z.infer<typeof Vendor>;

/** A logo as stored: its URL is derived from the digest and type when shown. */
export type StoredLogo = Omit<OrganizationLogo, "url">;
/** A profile as stored (one stored before the offering existed has none). */
export type StoredOrganizationProfile = Omit<OrganizationProfile, "logo" | "offering"> & {
  logo: StoredLogo | null;
  offering?: Offering;
};

/** The root-relative public path of a logo: `/public/logos/<sha256>.<png|jpg|webp>`. */
export function logoPath(logo: StoredLogo): string {
  return `/public/logos/${logo.sha256}.${IMAGE_TYPES[logo.contentType]}`;
}

/** A stored profile as the API shows it: the logo gets its absolute URL under `baseUrl`. */
export function presentProfile(
  stored: StoredOrganizationProfile,
  baseUrl: string,
): OrganizationProfile {
  const logo = stored.logo && { ...stored.logo, url: new URL(logoPath(stored.logo), baseUrl).href };
  return { ...stored, logo, offering: { ...emptyOffering(), ...stored.offering } };
}

/** The profile of an organization that never set one. */
export function emptyProfile(organizationId: string): StoredOrganizationProfile {
  return {
    organizationId,
    displayName: null,
    description: null,
    website: null,
    logo: null,
    securityContact: { email: null, url: null },
    brandColor: null,
    offering: emptyOffering(),
    updatedAt: null,
  };
}

/**
 * The vendor block of a profile, or null when nothing of it is set (an organization's
 * plain name alone is not a profile). The name falls back to the organization's name.
 */
export function vendorOf(
  profile: OrganizationProfile,
  organizationName: string,
): Vendor | null {
  const { displayName, description, website, logo, securityContact, brandColor } = profile;
  const set = [displayName, description, website, logo, brandColor, securityContact.email]
    .some((v) => v !== null) || securityContact.url !== null;
  if (!set) return null;
  return {
    name: displayName ?? organizationName,
    description,
    website,
    logoUrl: logo?.url ?? null,
    securityContact: { email: securityContact.email, url: securityContact.url },
    brandColor,
  };
}
