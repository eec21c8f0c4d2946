/** The OpenSSF Security Insights (v2) document of one version. */
import { EXPORT_FILES, type ExportInput, resolve, text } from "./_input.ts";

export const SECURITY_INSIGHTS_VERSION = "2.0.0";

/** The schema's `#Email` and `#URL`: a value outside them would make the document invalid. */
const SCHEMA_EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;
const SCHEMA_URL = /^https?:\/\/[^\s]+$/;

interface Contact {
  name: string;
  primary: boolean;
  email?: string;
}

/**
 * How to report a vulnerability, from the same sources in the same order as security.txt: the
 * organization's profile published with this version (email, policy URL), else the contact
 * the repository signals found. The service cannot know about a bug bounty, so
 * `bug-bounty-available` (a required boolean) is false and the comment says why.
 */
function vulnerabilityReporting(input: ReturnType<typeof resolve>): Record<string, unknown> {
  const own = input.profile.vendor?.securityContact;
  const fromProfile = Boolean(own?.email || own?.url);
  const valid = (value: string | null | undefined, pattern: RegExp) =>
    value && pattern.test(value) ? value : null;
  const email = fromProfile ? valid(own?.email, SCHEMA_EMAIL) : valid(
    input.signals?.securityContact.detected ? input.signals.securityContact.email : null,
    SCHEMA_EMAIL,
  );
  const policy = fromProfile ? valid(own?.url, SCHEMA_URL) : null;
  const reporting: Record<string, unknown> = {
    "reports-accepted": email !== null || policy !== null,
    "bug-bounty-available": false,
  };
  if (email) {
    const name = input.profile.vendor?.name?.trim() || email;
    reporting.contact = { name, primary: true, email } satisfies Contact;
  }
  if (policy) reporting["security-policy"] = policy;
  const known = email || policy
    ? `The contact is the one ${
      fromProfile ? "the organization's profile named" : "the repository signals found"
    } when this version was published.`
    : "No security contact was known when this version was published (reports-accepted is " +
      "false until the organization's profile names one).";
  reporting.comment = `${known} The service knows of no bug bounty (bug-bounty-available ` +
    "is false for that reason).";
  return reporting;
}

/**
 * OpenSSF Security Insights 2.0.0 (JSON form), valid against the schema's required fields:
 * the header, and a project naming the project, its trust page, how to verify signatures
 * and how to report a vulnerability. Required fields the service cannot fill from what it
 * knows stay empty rather than guessed: `repositories` (a project records no repository)
 * and, unless the organization set a profile, `administrators`, which otherwise names the
 * publishing organization (its members are never published). The header's comment says so.
 */
export function renderSecurityInsights(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, signals, urls } = input;
  const date = profile.publishedAt.slice(0, 10);
  const vendorName = profile.vendor?.name?.trim() || null;
  const administrators: Contact[] = vendorName ? [{ name: vendorName, primary: true }] : [];
  const notes = [
    `Published by ${input.baseUrl} with trust profile version ${profile.version} ` +
    `(overall state ${profile.summary.overallState}).`,
    "Only what the service can vouch for is filled in: repositories is empty (the service " +
    "records no repository) and administrators " +
    (vendorName ? "names the publishing organization, not its members" : "is empty") +
    "; a project's own security-insights.yml completes it.",
  ];
  if (signals) {
    const ci = signals.ciCd.detected
      ? [...(signals.ciCd.tools ?? []), ...(signals.ciCd.providers ?? [])].join(", ") ||
        "detected"
      : "not detected";
    notes.push(
      `Repository signals detected ${signals.detectedAt} at commit ${signals.commitSha}: CI/CD ${ci}.`,
    );
  }
  return {
    header: {
      "schema-version": SECURITY_INSIGHTS_VERSION,
      "last-updated": date,
      "last-reviewed": date,
      url: urls.versionDocument(EXPORT_FILES.securityInsights),
      comment: notes.join(" "),
    },
    project: {
      name: text(profile.project.name, profile.project.slug),
      homepage: urls.page,
      administrators,
      repositories: [],
      "vulnerability-reporting": vulnerabilityReporting(input),
      documentation: { "signature-verification": `${input.baseUrl}/verify.ts` },
    },
  };
}
