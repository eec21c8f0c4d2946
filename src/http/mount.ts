/**
 * Where every sub-app is mounted: the one list of the service's routes. Public reads are
 * mounted at their resource base paths; the operator API's sub-apps span several bases
 * (a project's controls, collectors, evidence…) and are mounted at the root.
 */
import { deletionRoutes } from "./routes/deletions.ts";
import { retentionRoutes } from "./routes/retention.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Config } from "../config.ts";
import type { AppEnv } from "./env.ts";
import { cliModuleRoutes } from "./routes/cli_modules.ts";
import { collectorRoutes } from "./routes/collectors.ts";
import { controlRoutes } from "./routes/controls.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { discoveryRoutes, guideRoutes } from "./routes/discovery.ts";
import { docsRoutes } from "./routes/docs.ts";
import { domainRoutes } from "./routes/domains.ts";
import { evaluationRoutes } from "./routes/evaluations.ts";
import { evidenceRoutes } from "./routes/evidence.ts";
import { faviconRoutes } from "./routes/favicon.ts";
import { answerRoutes } from "./routes/answers.ts";
import { questionnaireRoutes } from "./routes/questionnaires.ts";
import { answerImportRoutes } from "./routes/answer_imports.ts";
import { questionnaireKindRoutes } from "./routes/questionnaire_kinds.ts";
import { questionnaireFileRoutes } from "./routes/questionnaire_files.ts";
import { publicAnswerRoutes } from "./routes/public_answers.ts";
import { publicQuestionnaireRoutes } from "./routes/public_questionnaires.ts";
import { frameworkRoutes, trustFrameworkRoutes } from "./routes/frameworks.ts";
import { ingestRoutes } from "./routes/ingest.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { logPageRoutes, logRoutes } from "./routes/log.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { meRoutes } from "./routes/me.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { oauthSignInLinkRoutes } from "./routes/oauth_sign_in_link.ts";
import { oauthTokenRoutes } from "./routes/oauth_token.ts";
import { organizationProfileRoutes } from "./routes/org_profile.ts";
import { subprocessorRoutes } from "./routes/subprocessors.ts";
import {
  certificationFrameworkRoutes,
  certificationRoutes,
  publicCertificationRoutes,
} from "./routes/certifications.ts";
import { documentRoutes } from "./routes/documents.ts";
import { accessRequestRoutes } from "./routes/access_requests.ts";
import { accessLinkRoutes } from "./routes/access_links.ts";
import { publicDocumentRoutes } from "./routes/public_documents.ts";
import { buyerRoutes } from "./routes/buyers.ts";
import { buyerMemberRoutes } from "./routes/buyer_members.ts";
import { buyerTokenRoutes } from "./routes/buyer_tokens.ts";
import { buyerDocumentRoutes } from "./routes/buyer_documents.ts";
import { buyerInventoryRoutes } from "./routes/buyer_inventory.ts";
import { accessRuleRoutes } from "./routes/access_rules.ts";
import { accessReportRoutes } from "./routes/access_reports.ts";
import { projectAccessRuleRoutes } from "./routes/project_access_rules.ts";
import { subscriberRoutes } from "./routes/subscribers.ts";
import { subscriptionLinkRoutes } from "./routes/subscription_links.ts";
import {
  organizationSubscriptionRoutes,
  projectSubscriptionRoutes,
} from "./routes/subscriptions.ts";
import { organizationRoutes } from "./routes/organizations.ts";
import { organizationExportRoutes } from "./routes/organization_export.ts";
import { accessTokenRoutes } from "./routes/access_tokens.ts";
import { projectRoutes } from "./routes/projects.ts";
import { trustCenterRoutes, trustDomainRoutes } from "./routes/public_org.ts";
import { publicSearchRoutes } from "./routes/public_search.ts";
import { publicLogoRoutes } from "./routes/public_logos.ts";
import { publicTrustRoutes } from "./routes/public_trust.ts";
import { publishRoutes } from "./routes/publish.ts";
import { securityTxtRoutes } from "./routes/security_txt.ts";
import { signupRoutes } from "./routes/signup.ts";
import { sigstoreIdentityRoutes } from "./routes/sigstore_identities.ts";
import { trustExportRoutes } from "./routes/trust_exports.ts";
import { trustHistoryRoutes } from "./routes/trust_history.ts";
import { trustVersionRoutes } from "./routes/trust_versions.ts";
import { trustUpdateRoutes } from "./routes/trust_updates.ts";
import { trustDocumentRoutes } from "./routes/trust_documents.ts";
import { updateRoutes } from "./routes/updates.ts";
import { wellKnownRoutes } from "./routes/well_known.ts";
import { webhookDeliveryRoutes } from "./routes/webhook_deliveries.ts";
import { webhookRoutes } from "./routes/webhooks.ts";

/** Mounts every sub-app on `app`; the built-in identity provider only in builtin mode. */
export function mountRoutes(app: OpenAPIHono<AppEnv>, config: Config): void {
  app.route("/", wellKnownRoutes);
  app.route("/", jobRoutes);
  app.route("/.well-known", discoveryRoutes);
  app.route("/", guideRoutes);
  app.route("/", docsRoutes);
  app.route("/mcp", mcpRoutes);
  app.route("/trust/domains", trustDomainRoutes);
  app.route("/public/trust", trustCenterRoutes);
  app.route("/public/trust", publicDocumentRoutes);
  app.route("/public/trust", buyerRoutes);
  app.route("/public/trust", buyerMemberRoutes);
  app.route("/public/trust", buyerTokenRoutes);
  app.route("/public/trust", buyerDocumentRoutes);
  app.route("/public/trust", publicAnswerRoutes);
  app.route("/public/trust", publicQuestionnaireRoutes);
  app.route("/documents/access", accessLinkRoutes);
  app.route("/public/trust", organizationSubscriptionRoutes);
  app.route("/public/trust", publicCertificationRoutes);
  app.route("/public", certificationFrameworkRoutes);
  app.route("/public/trust-profiles", publicSearchRoutes);
  app.route("/public/logos", publicLogoRoutes);
  app.route("/trust", publicTrustRoutes);
  app.route("/trust", trustVersionRoutes);
  app.route("/trust", trustHistoryRoutes);
  app.route("/trust", trustUpdateRoutes);
  app.route("/trust", trustDocumentRoutes);
  app.route("/trust", trustExportRoutes);
  app.route("/trust", trustFrameworkRoutes);
  app.route("/log", logRoutes);
  app.route("/", logPageRoutes);
  app.route("/trust", securityTxtRoutes);
  app.route("/trust", projectSubscriptionRoutes);
  app.route("/", subscriptionLinkRoutes);
  app.route("/", cliModuleRoutes);
  app.route("/", faviconRoutes);
  app.route("/", dashboardRoutes);

  app.route("/", meRoutes);
  app.route("/", deletionRoutes);
  app.route("/", retentionRoutes);
  app.route("/", organizationRoutes);
  app.route("/", organizationExportRoutes);
  app.route("/", accessTokenRoutes);
  app.route("/", organizationProfileRoutes);
  app.route("/", subprocessorRoutes);
  app.route("/", certificationRoutes);
  app.route("/", answerRoutes);
  app.route("/", answerImportRoutes);
  app.route("/", questionnaireRoutes);
  app.route("/", questionnaireFileRoutes);
  app.route("/", questionnaireKindRoutes);
  app.route("/", documentRoutes);
  app.route("/", accessRequestRoutes);
  app.route("/", buyerInventoryRoutes);
  app.route("/", accessRuleRoutes);
  app.route("/", accessReportRoutes);
  app.route("/", projectAccessRuleRoutes);
  app.route("/", subscriberRoutes);
  app.route("/", projectRoutes);
  app.route("/", sigstoreIdentityRoutes);
  app.route("/", controlRoutes);
  app.route("/", frameworkRoutes);
  app.route("/", evaluationRoutes);
  app.route("/", collectorRoutes);
  app.route("/", evidenceRoutes);
  app.route("/", ingestRoutes);
  app.route("/", publishRoutes);
  app.route("/", domainRoutes);
  app.route("/", updateRoutes);
  app.route("/", webhookRoutes);
  app.route("/", webhookDeliveryRoutes);
  if (config.auth.mode === "builtin") {
    app.route("/", oauthRoutes);
    app.route("/", oauthSignInLinkRoutes);
    app.route("/", oauthTokenRoutes);
    app.route("/", signupRoutes);
  }
}
