/** The OpenSSF Security Insights (v2) document of one version. */
import { EXPORT_FILES, type ExportInput, resolve, text } from "./_input.ts";

export const SECURITY_INSIGHTS_VERSION = "2.0.0";

/**
 * OpenSSF Security Insights v2 (JSON form) with what the service knows: the header, and a
 * project section naming the project, its trust page, how to verify signatures and, when
 * the collector found one, the security contact. Fields the schema requires but the service
 * cannot know (administrators, repositories, bug bounty) are left out, never guessed.
 */
export function renderSecurityInsights(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, signals, urls } = input;
  const date = profile.publishedAt.slice(0, 10);
  const notes = [
    `Published by ${input.baseUrl} with trust profile version ${profile.version} ` +
    `(overall state ${profile.summary.overallState}).`,
    "Only fields the service can vouch for are present; a project's own security-insights.yml completes it.",
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
  const project: Record<string, unknown> = {
    name: text(profile.project.name, profile.project.slug),
    homepage: urls.page,
    documentation: { "signature-verification": `${input.baseUrl}/verify.ts` },
  };
  const contact = signals?.securityContact;
  if (contact?.detected && contact.email) {
    project["vulnerability-reporting"] = {
      "reports-accepted": true,
      contact: { name: contact.email, primary: true, email: contact.email },
    };
  }
  return {
    header: {
      "schema-version": SECURITY_INSIGHTS_VERSION,
      "last-updated": date,
      "last-reviewed": date,
      url: urls.versionDocument(EXPORT_FILES.securityInsights),
      comment: notes.join(" "),
    },
    project,
  };
}
