/**
 * security.txt (RFC 9116) of a published public project: where to report a vulnerability.
 * The contact is the organization's profile (email and/or URL), else the security contact
 * the project's signal detection found; without either there is no file (404). Written per
 * request, so `Expires` is always the same distance ahead.
 */
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import type { Project } from "../domain/workspace.ts";
import { getVendor } from "../store/org_profiles.ts";
import { getLatestSignals } from "../store/signals.ts";

/** How far ahead `Expires` is (RFC 9116 §2.5.5 recommends less than a year). */
export const SECURITY_TXT_LIFETIME_DAYS = 180;
export const SECURITY_TXT_TYPE = "text/plain; charset=utf-8";

/** A value that may stand on a security.txt line: printable ASCII without spaces. */
const SAFE_VALUE = /^[!-~]+$/;

async function contacts(kv: Deno.Kv, project: Project, config: Config): Promise<string[]> {
  const vendor = await getVendor(kv, project.organizationId, { baseUrl: config.baseUrl });
  const found: string[] = [];
  const email = vendor?.securityContact.email;
  if (email) found.push(`mailto:${email}`);
  const url = vendor?.securityContact.url;
  if (url?.startsWith("https://")) found.push(url);
  if (found.length === 0) {
    const detected = (await getLatestSignals(kv, project.id))?.securityContact.email;
    if (detected) found.push(`mailto:${detected}`);
  }
  return found.filter((value) => SAFE_VALUE.test(value));
}

/**
 * The security.txt of a public, published project served at `canonical`, or a 404 when no
 * contact is known. Fields: Contact (one per address), Expires (`now` +
 * SECURITY_TXT_LIFETIME_DAYS, whole seconds, UTC), Canonical and Preferred-Languages: en.
 */
export async function securityTxtOf(
  kv: Deno.Kv,
  project: Project,
  options: { config: Config; canonical: string; now: Date },
): Promise<string> {
  const found = await contacts(kv, project, options.config);
  if (found.length === 0) throw notFound("No security contact is known for this project");
  const expires = new Date(options.now.getTime() + SECURITY_TXT_LIFETIME_DAYS * 86_400_000);
  return [
    `# Security contact of the project "${project.slug}" (RFC 9116)`,
    ...found.map((contact) => `Contact: ${contact}`),
    `Expires: ${expires.toISOString().replace(/\.\d{3}Z$/, "Z")}`,
    `Canonical: ${options.canonical}`,
    "Preferred-Languages: en",
    "",
  ].join("\n");
}
