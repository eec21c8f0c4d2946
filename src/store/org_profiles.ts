/**
 * Organization profiles and the logos they show. A logo's bytes are a blob (kind `logo`);
 * its record under `logos` says which type it was accepted as, and is what lets its public
 * URL answer. Logos are content-addressed and immutable, like the published pages that
 * show them, so a record is never deleted.
 */
import {
  emptyProfile,
  presentProfile,
  type StoredLogo,
  type StoredOrganizationProfile,
  type UpdateOrganizationProfileRequest,
  type Vendor,
  vendorOf,
} from "../domain/vendor.ts";
import { conflict } from "../domain/errors.ts";
import { emptyOffering, mergeOffering } from "../domain/offering.ts";
import { logoKey, organizationProfileKey } from "./keys.ts";
import { getOrganization } from "./organizations.ts";
import { reindexProfileUpdate } from "./search_index.ts";

const MAX_ATTEMPTS = 10;

/** A stored logo: what its bytes were accepted as. */
export interface LogoRecord {
  contentType: StoredLogo["contentType"];
  size: number;
}

/** The organization's profile; one with every field null when it never set any. */
export async function getOrganizationProfile(
  kv: Deno.Kv,
  organizationId: string,
): Promise<StoredOrganizationProfile> {
  const entry = await kv.get<StoredOrganizationProfile>(organizationProfileKey(organizationId));
  return entry.value ?? emptyProfile(organizationId);
}

/** Applies `change` to the stored profile; fields absent from it are kept. */
function merged(
  current: StoredOrganizationProfile,
  change: UpdateOrganizationProfileRequest,
  now: Date,
): StoredOrganizationProfile {
  const next: StoredOrganizationProfile = {
    ...current,
    securityContact: { ...current.securityContact },
    updatedAt: now.toISOString(),
  };
  if (change.displayName !== undefined) next.displayName = change.displayName || null;
  if (change.description !== undefined) next.description = change.description || null;
  if (change.website !== undefined) next.website = change.website;
  if (change.brandColor !== undefined) next.brandColor = change.brandColor?.toLowerCase() ?? null;
  const contact = change.securityContact;
  if (contact?.email !== undefined) next.securityContact.email = contact.email;
  if (contact?.url !== undefined) next.securityContact.url = contact.url;
  if (change.offering !== undefined) {
    next.offering = mergeOffering({ ...emptyOffering(), ...current.offering }, change.offering);
  }
  return next;
}

async function updateProfile(
  kv: Deno.Kv,
  organizationId: string,
  apply: (
    current: StoredOrganizationProfile,
  ) => { profile: StoredOrganizationProfile; logo?: LogoRecord },
): Promise<StoredOrganizationProfile> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const key = organizationProfileKey(organizationId);
    const entry = await kv.get<StoredOrganizationProfile>(key);
    const current = entry.value ?? emptyProfile(organizationId);
    const { profile, logo } = apply(current);
    const op = kv.atomic().check(entry).set(key, profile);
    await reindexProfileUpdate(kv, op, organizationId, current, profile);
    if (logo && profile.logo) op.set(logoKey(profile.logo.sha256), logo);
    if ((await op.commit()).ok) return profile;
  }
  throw conflict("The profile kept changing while it was being saved; please retry");
}

/** Changes the fields present in `change` (null clears one); returns the stored profile. */
export function patchOrganizationProfile(
  kv: Deno.Kv,
  organizationId: string,
  options: { change: UpdateOrganizationProfileRequest; now: Date },
): Promise<StoredOrganizationProfile> {
  return updateProfile(kv, organizationId, (current) => ({
    profile: merged(current, options.change, options.now),
  }));
}

/** Sets (or, with null, removes) the profile's logo; the bytes must already be stored. */
export function setOrganizationLogo(
  kv: Deno.Kv,
  organizationId: string,
  options: { logo: StoredLogo | null; now: Date },
): Promise<StoredOrganizationProfile> {
  const { logo, now } = options;
  return updateProfile(kv, organizationId, (current) => ({
    profile: { ...current, logo, updatedAt: now.toISOString() },
    logo: logo ? { contentType: logo.contentType, size: logo.size } : undefined,
  }));
}

/** The record of an uploaded logo by its SHA-256, or null. */
export async function getLogo(kv: Deno.Kv, sha256: string): Promise<LogoRecord | null> {
  return (await kv.get<LogoRecord>(logoKey(sha256))).value;
}

/**
 * The organization as a vendor (its profile with the logo's URL under `baseUrl`), or null
 * when the organization is unknown or set no profile.
 */
export async function getVendor(
  kv: Deno.Kv,
  organizationId: string,
  options: { baseUrl: string },
): Promise<Vendor | null> {
  const [organization, stored] = await Promise.all([
    getOrganization(kv, organizationId),
    getOrganizationProfile(kv, organizationId),
  ]);
  if (!organization) return null;
  return vendorOf(presentProfile(stored, options.baseUrl), organization.name);
}
