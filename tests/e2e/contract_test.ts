/**
 * Contract test: drives every operation /openapi.json describes on the
 * running server and validates each response (status and body) against the
 * schema the document gives for it. A new route fails this test until it is
 * added to the table below.
 */
import assert from "node:assert/strict";
import { startDnsServer } from "../support/dns_server.ts";
import {
  createResponseValidator,
  type OpenApiDocument,
  operations,
} from "../support/openapi_validator.ts";
import { startTestServer } from "../support/server.ts";
import { exerciseAccessTokens } from "./_contract_access_tokens.ts";
import { exerciseAnswers, exerciseFrameworks } from "./_contract_buyer.ts";
import { exerciseBuyers } from "./_contract_buyers.ts";
import { exerciseDeletion } from "./_contract_deletion.ts";
import { exerciseDocuments } from "./_contract_documents.ts";
import { exerciseQuestionnaires } from "./_contract_questionnaires.ts";
import { exerciseRetention } from "./_contract_retention.ts";

interface Call {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** A raw body, sent with its own Content-Type from `headers`. */
  body?: BodyInit;
  auth?: "human" | "collector" | "none";
  headers?: Record<string, string>;
  expect: number;
}

Deno.test("[contract] every operation answers as /openapi.json documents", async (t) => {
  const dns = await startDnsServer();
  await using server = await startTestServer({
    worker: false,
    env: { SIGNUP: "open", DNS_NAMESERVER: `127.0.0.1:${dns.port}` },
  });
  try {
    const doc: OpenApiDocument = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const ops = operations(doc);
    const validate = createResponseValidator(doc);
    const fx: Record<string, string> = {
      human: await server.tokenFor("owner"),
      invitee: await server.tokenFor("invitee"),
      owner: await server.tokenFor("owner"),
      spare: await server.tokenFor("spare"),
    };

    const call = async (operationId: string, spec: Call) => {
      const op = ops.get(operationId);
      assert.ok(op, `operation ${operationId} is documented`);
      let path = op.path;
      for (const [k, v] of Object.entries(spec.params ?? {})) {
        path = path.replace(`{${k}}`, encodeURIComponent(String(v)));
      }
      assert.doesNotMatch(path, /\{/, `${operationId}: every path parameter is filled`);
      const url = new URL(path, server.baseUrl);
      for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
      const headers = new Headers(spec.headers);
      const auth = spec.auth ?? (op.operation.security?.length ? "human" : "none");
      if (auth === "human") headers.set("authorization", `Bearer ${fx.human}`);
      if (auth === "collector") headers.set("authorization", `Bearer ${fx.secret}`);
      let body: BodyInit | undefined = spec.body;
      if (spec.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(spec.json);
      } else if (spec.form) {
        headers.set("content-type", "application/x-www-form-urlencoded");
        body = new URLSearchParams(spec.form);
      }
      const res = await fetch(url, { method: op.method, headers, body, redirect: "manual" });
      const type = res.headers.get("content-type") ?? "";
      const text = await res.text();
      const parsed = type.includes("json") && text ? JSON.parse(text) : text;
      assert.equal(res.status, spec.expect, `${operationId}: ${text.slice(0, 300)}`);
      const problems = validate(op, res.status, type, parsed);
      assert.deepEqual(problems, [], `${operationId} ${res.status} body matches its schema`);
      covered.add(operationId);
      return parsed;
    };
    const covered = new Set<string>();
    const unauthenticated = new Set<string>();

    await t.step("the happy path of every operation", async () => {
      await call("health", { expect: 200 });
      await call("getOpenApi", { expect: 200 });
      await call("getJwks", { expect: 200 });
      await call("getAuthorizationServerMetadata", { expect: 200 });
      await call("getDashboardConfig", { expect: 200 });
      await call("getEvaluationRulesMarkdown", { expect: 200 });
      await call("getEvaluationRules", { expect: 200 });
      await call("getCollectorCli", { expect: 200 });
      await call("getVerifierKit", { expect: 200 });
      await call("getVerifierKitModule", { params: { module: "main.ts" }, expect: 200 });
      await call("getVerifierKitModule", { params: { module: "nothing.ts" }, expect: 404 });
      await call("getCollectorCliModule", { params: { module: "args.ts" }, expect: 200 });
      await call("getCollectorCliModule", { params: { module: "nothing.ts" }, expect: 404 });
      await call("getFavicon", { expect: 200 });
      await call("getMe", { expect: 200 });
      const boot = await call("bootstrapWorkspace", {
        json: { workspaceName: "Acme", projectName: "Acme Cloud", projectSlug: "acme" },
        expect: 201,
      });
      fx.org = boot.organization.id;
      fx.orgSlug = boot.organization.slug;
      fx.project = boot.project.id;
      await call("createOrganization", { json: { name: "Acme Labs" }, expect: 201 });
      await call("getOrganization", { params: { organizationId: fx.org }, expect: 200 });
      await call("listOrganizationProjects", { params: { organizationId: fx.org }, expect: 200 });
      await call("listOrganizationMembers", { params: { organizationId: fx.org }, expect: 200 });
      await call("exportOrganization", { params: { organizationId: fx.org }, expect: 200 });
      await call("exportOrganization", {
        params: { organizationId: fx.org },
        query: { include: "everything" },
        expect: 400,
      });
      await call("getOrganizationProfile", { params: { organizationId: fx.org }, expect: 200 });
      await call("updateOrganizationProfile", {
        params: { organizationId: fx.org },
        json: {
          displayName: "Acme, Inc.",
          securityContact: { email: "security@acme.test" },
          brandColor: "#1d4ed8",
        },
        expect: 200,
      });
      const withLogo = await call("putOrganizationLogo", {
        params: { organizationId: fx.org },
        body: await Deno.readFile(new URL("../fixtures/logos/logo.webp", import.meta.url)),
        headers: { "content-type": "image/webp" },
        expect: 200,
      });
      fx.logo = new URL(withLogo.profile.logo.url).pathname.split("/").pop()!;
      const invitation = await call("inviteMember", {
        params: { organizationId: fx.org },
        json: { email: "invitee@example.com", role: "member" },
        expect: 201,
      });
      fx.invitation = invitation.acceptUrl.split("#invitation=")[1];
      const second = await call("createProject", {
        json: { organizationId: fx.org, name: "Second", visibility: "public" },
        expect: 201,
      });
      fx.second = second.project.id;
      await call("getProject", { params: { id: fx.project }, expect: 200 });
      await call("updateProject", {
        params: { id: fx.project },
        json: { visibility: "public", hostedSubdomain: "acme" },
        expect: 200,
      });
      await call("setSigstoreIdentities", {
        params: { id: fx.project },
        json: {
          identities: [{
            issuer: "https://token.actions.githubusercontent.com",
            subject: "https://github.com/acme/app/.github/workflows/release.yml@refs/tags/*",
          }],
        },
        expect: 200,
      });
      await call("getSigstoreIdentities", { params: { id: fx.project }, expect: 200 });
      await call("setProvenanceSubjects", {
        params: { id: fx.project },
        json: {
          requireMatch: true,
          digestsFrom: ["deployment_snapshot", "sbom"],
          artifactNames: ["ghcr.io/acme/*"],
        },
        expect: 200,
      });
      await call("getProvenanceSubjects", { params: { id: fx.project }, expect: 200 });
      const controls = await call("listProjectControls", {
        params: { id: fx.project },
        expect: 200,
      });
      fx.control = controls.controls[1].id;
      await call("createProjectControl", {
        params: { id: fx.project },
        json: {
          key: "custom.critical",
          publicName: "No criticals",
          evidenceType: "vulnerability_scan",
          rule: { path: "summary.critical", op: "eq", value: 0 },
        },
        expect: 201,
      });
      await call("updateProjectControl", {
        params: { id: fx.project, controlId: fx.control },
        json: { publicName: "SBOM" },
        expect: 200,
      });
      const created = await call("createCollector", {
        params: { id: fx.project },
        json: { name: "ci" },
        expect: 201,
      });
      fx.collector = created.collector.id;
      fx.secret = created.secret.value;
      await call("listCollectors", { params: { id: fx.project }, expect: 200 });
      await call("getCollectorSetupGuide", { params: { id: fx.project }, expect: 200 });
      await call("getCollectorSetupGuideBlocks", { params: { id: fx.project }, expect: 200 });
      await call("collectorHeartbeat", {
        params: { collectorId: fx.collector },
        json: { sourceRef: "ci" },
        auth: "collector",
        expect: 200,
      });
      const observedAt = new Date().toISOString();
      const item = (n: number) => ({
        evidenceType: "sbom",
        sourceType: "github_actions",
        sourceRef: `acme/api@${n}`,
        observedAt,
        payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [{ name: `c${n}` }] },
      });
      const single = await call("ingestEvidence", {
        json: { projectId: fx.project, ...item(1) },
        auth: "collector",
        expect: 201,
      });
      fx.record = single.record.id;
      await call("ingestEvidence", {
        json: { projectId: fx.project, ...item(1) },
        auth: "collector",
        expect: 200,
      });
      await call("ingestEvidenceBatch", {
        json: { projectId: fx.project, records: [item(2), item(3)] },
        auth: "collector",
        expect: 201,
      });
      await call("ingestSignals", {
        json: {
          projectId: fx.project,
          detection: {
            detectedAt: new Date().toISOString(),
            commitSha: "abc123",
            ciCd: { detected: true, tools: ["github-actions"] },
            monitoring: { detected: false },
            authProvider: { detected: false },
            cloudProvider: { detected: true, providers: ["aws"] },
            securityContact: { detected: true, email: "security@acme.test" },
          },
        },
        auth: "collector",
        expect: 201,
      });
      await call("listEvidence", {
        params: { id: fx.project },
        query: { limit: "2" },
        expect: 200,
      });
      await call("getEvidencePayload", {
        params: { id: fx.project, recordId: fx.record },
        expect: 200,
      });
      await call("recomputeEvaluations", { params: { id: fx.project }, expect: 200 });
      await call("listEvaluations", { params: { id: fx.project }, expect: 200 });
      await call("previewPublish", { params: { id: fx.project }, expect: 200 });
      await call("publishProject", { params: { id: fx.project }, expect: 201 });
      await call("publishProject", { params: { id: fx.project }, expect: 201 });
      await call("getPublishedProfile", { params: { id: fx.project }, expect: 200 });
      await call("listPublishedProfiles", { params: { id: fx.project }, expect: 200 });
      const slug = { projectSlug: "acme" };
      await call("getTrustProfile", { params: slug, expect: 200 });
      await call("getTrustJson", { params: slug, expect: 200 });
      await call("getTrustJsonSignature", { params: slug, expect: 200 });
      await call("getTrustControls", { params: slug, expect: 200 });
      await call("getTrustSignals", { params: slug, expect: 200 });
      await call("getTrustSetupGuide", { params: slug, expect: 200 });
      await call("getTrustSetupGuide", { params: { projectSlug: "nobody" }, expect: 404 });
      await call("listTrustVersions", { params: slug, expect: 200 });
      await call("listTrustVersions", { params: slug, query: { limit: "1" }, expect: 200 });
      await call("getTrustVersionsPage", { params: slug, expect: 200 });
      await call("getTrustVersionsMarkdown", { params: slug, query: { cursor: "2" }, expect: 200 });
      await call("searchTrustProfiles", { query: { query: "acme" }, expect: 200 });
      await call("getTrustVersionDocument", {
        params: { ...slug, version: 1, document: "trust.json" },
        expect: 200,
      });
      for (
        const document of [
          "oscal-assessment-results.json",
          "oscal-assessment-results.json.jws",
          "vsa.intoto.json",
          "security-insights.json",
          "security-insights.json.jws",
        ]
      ) {
        await call("getTrustVersionDocument", {
          params: { ...slug, version: 2, document },
          expect: 200,
        });
      }
      await call("getTrustOscal", { params: slug, expect: 200 });
      await call("getTrustOscalSignature", { params: slug, expect: 200 });
      await call("getTrustAttestation", { params: slug, expect: 200 });
      await call("getTrustSecurityInsights", { params: slug, expect: 200 });
      await call("getTrustSecurityInsightsSignature", { params: slug, expect: 200 });
      await call("getTrustFeed", { params: slug, expect: 200 });
      await call("getTrustBadgeSvg", { params: slug, expect: 200 });
      await call("getTrustBadgeJson", { params: slug, expect: 200 });
      await call("getLogInfo", { expect: 200 });
      await call("getLogInfo", { headers: { accept: "text/html" }, expect: 200 });
      await call("getLogInfo", { headers: { accept: "text/markdown" }, expect: 200 });
      await call("getLogInfoJson", { expect: 200 });
      await call("getLogPage", { expect: 200 });
      await call("getLogMarkdown", { expect: 200 });
      await call("getLogCheckpoint", { expect: 200 });
      await call("getLogEntry", { params: { index: 0 }, expect: 200 });
      await call("getLogEntry", { params: { index: 99 }, expect: 404 });
      await call("getLogInclusionProofByIndex", { params: { index: 1 }, expect: 200 });
      await call("getLogInclusionProofByIndex", {
        params: { index: 0 },
        query: { treeSize: "9" },
        expect: 404,
      });
      await call("getLogInclusionProofByVersion", {
        params: { ...slug, version: 2 },
        query: { treeSize: "2" },
        expect: 200,
      });
      await call("getLogInclusionProofByVersion", { params: { ...slug, version: 0 }, expect: 400 });
      await call("listLogEntriesOfProject", {
        params: slug,
        query: { treeSize: "2", limit: "1" },
        expect: 200,
      });
      await call("listLogEntriesOfProject", { params: slug, query: { limit: "0" }, expect: 400 });
      await call("listLogEntriesOfProject", { params: { projectSlug: "nobody" }, expect: 404 });
      await call("getLogConsistencyProof", { query: { from: "1", to: "2" }, expect: 200 });
      await call("getLogConsistencyProof", { query: { from: "2", to: "1" }, expect: 400 });
      await call("getOrganizationTrustCenter", { params: { orgSlug: fx.orgSlug }, expect: 200 });
      const org = { organizationId: fx.org };
      const added = await call("addSubprocessor", {
        params: org,
        json: {
          name: "Hetzner",
          purpose: "Hosting",
          location: "Germany",
          website: "https://h.example",
        },
        expect: 201,
      });
      const subItem = { ...org, subprocessorId: added.subprocessor.id };
      await call("updateSubprocessor", {
        params: subItem,
        json: { location: "Finland" },
        expect: 200,
      });
      await call("updateSubprocessor", { params: subItem, json: {}, expect: 400 });
      await call("listSubprocessors", { params: org, expect: 200 });
      await call("getOrganizationSubprocessors", { params: { orgSlug: fx.orgSlug }, expect: 200 });
      await call("getOrganizationSubprocessorsMarkdown", {
        params: { orgSlug: fx.orgSlug },
        expect: 200,
      });
      await call("removeSubprocessor", { params: subItem, expect: 200 });
      await call("removeSubprocessor", { params: subItem, expect: 404 });
      // FedRAMP ADS (docs/ads_profile.md): the offering's document, access guide and status.
      await call("updateOrganizationProfile", {
        params: org,
        json: {
          offering: {
            serviceModel: "saas",
            services: [{ name: "Evidence API", impactLevel: "moderate" }],
            supportContacts: [{ label: "Support", email: "support@acme.example" }],
          },
        },
        expect: 200,
      });
      const center = { orgSlug: fx.orgSlug };
      await call("getTrustCenterAdsDocument", { params: center, expect: 200 });
      await call("getTrustCenterAccessGuide", { params: center, expect: 200 });
      await call("getTrustCenterAccessGuideMarkdown", { params: center, expect: 200 });
      await call("getTrustCenterStatus", { params: center, expect: 200 });
      await call("getTrustCenterStatusMarkdown", { params: center, expect: 200 });
      await call("getTrustCenterStatus", { params: { orgSlug: "no-such-center" }, expect: 404 });
      await call("listCertificationFrameworks", { expect: 200 });
      const certified = await call("createCertification", {
        params: org,
        // fixed-instant: a past audit and issue date, valid until 2099: the same every day
        json: {
          framework: "soc2-type2",
          status: "achieved",
          auditor: "Example Assurance LLP",
          auditPeriod: { start: "2025-10-01T00:00:00Z", end: "2026-09-30T00:00:00Z" },
          issuedAt: "2026-10-15T00:00:00Z",
          expiresAt: "2099-10-15T00:00:00Z",
          scope: "The platform",
          registryUrl: "https://registry.example/acme",
        },
        expect: 201,
      });
      await call("createCertification", {
        params: org,
        json: { framework: "iso9001", status: "achieved" },
        expect: 400,
      });
      const certItem = { ...org, certificationId: certified.certification.id };
      await call("updateCertification", {
        params: certItem,
        json: { scope: "The whole platform" },
        expect: 200,
      });
      await call("updateCertification", { params: certItem, json: {}, expect: 400 });
      await call("listCertifications", { params: org, expect: 200 });
      await call("getOrganizationCertifications", { params: { orgSlug: fx.orgSlug }, expect: 200 });
      await call("getOrganizationTrustCenter", { params: { orgSlug: fx.orgSlug }, expect: 200 });
      await call("getTrustProfile", { params: slug, expect: 200 });
      await call("deleteCertification", { params: certItem, expect: 200 });
      await call("deleteCertification", { params: certItem, expect: 404 });
      const posted = await call("postProjectUpdate", {
        params: { id: fx.project },
        json: { kind: "incident", title: "API errors", body: "We are **investigating**." },
        expect: 201,
      });
      const updateItem = { projectId: fx.project, updateId: posted.update.id };
      await call("editProjectUpdate", {
        params: updateItem,
        json: { resolved: true },
        expect: 200,
      });
      await call("editProjectUpdate", { params: updateItem, json: {}, expect: 400 });
      await call("listProjectUpdates", { params: { id: fx.project }, expect: 200 });
      await call("listTrustUpdates", { params: slug, expect: 200 });
      await call("listTrustUpdates", { params: slug, query: { cursor: "nope" }, expect: 400 });
      await call("getTrustUpdatesPage", { params: slug, expect: 200 });
      await call("getTrustUpdatesMarkdown", { params: slug, query: { limit: "1" }, expect: 200 });
      await call("getTrustUpdate", {
        params: { ...slug, updateId: posted.update.id },
        expect: 200,
      });
      await call("getTrustUpdate", { params: { ...slug, updateId: "missing" }, expect: 404 });
      await call("deleteProjectUpdate", { params: updateItem, expect: 200 });
      await call("deleteProjectUpdate", { params: updateItem, expect: 404 });
      await exerciseDocuments(call, { ...fx, projectSlug: slug.projectSlug });
      await exerciseBuyers(call, fx, server.kv);
      await exerciseAccessTokens(call, fx);
      await exerciseFrameworks(call, { ...fx, projectSlug: slug.projectSlug });
      await exerciseAnswers(call, fx);
      await exerciseQuestionnaires(call, fx);
      // No SMTP here: subscribing is refused (409), links are unknown (404).
      const email = { email: "buyer@customer.example" };
      await call("subscribeToProject", { params: slug, json: email, expect: 409 });
      await call("subscribeToProject", { params: slug, form: email, expect: 409 });
      await call("subscribeToProject", { params: slug, json: { email: "x" }, expect: 400 });
      await call("subscribeToOrganization", {
        params: { orgSlug: fx.orgSlug },
        json: email,
        expect: 409,
      });
      const link = { token: `${crypto.randomUUID()}.${"a".repeat(43)}` };
      await call("showSubscriptionConfirmation", { params: link, expect: 404 });
      await call("confirmSubscription", { params: link, expect: 404 });
      await call("showUnsubscribe", { params: link, expect: 404 });
      await call("unsubscribe", { params: link, expect: 404 });
      await call("listSubscribers", { params: org, expect: 200 });
      await call("removeSubscriber", {
        params: { ...org, subscriptionId: crypto.randomUUID() },
        expect: 404,
      });
      await call("getServiceStatus", { expect: 200 });
      // No job worker runs in this test's server: the readiness route says so.
      await call("readiness", { expect: 503 });
      await call("listDeadJobs", { params: org, expect: 200 });
      await call("retryDeadJob", { params: { ...org, jobId: crypto.randomUUID() }, expect: 404 });
      await call("getTrustSecurityTxt", { params: slug, expect: 200 });
      await call("getOrganizationLogo", { params: { fileName: fx.logo }, expect: 200 });
      await call("deleteOrganizationLogo", { params: { organizationId: fx.org }, expect: 200 });
      const domain = await call("addProjectDomain", {
        params: { id: fx.project },
        json: { domain: "trust.acme.example" },
        expect: 201,
      });
      fx.domain = domain.domain.domain.id;
      dns.records.set("_service.trust.acme.example", [[domain.domain.instructions.recordValue]]);
      await call("listProjectDomains", { params: { id: fx.project }, expect: 200 });
      await call("verifyProjectDomain", {
        params: { projectId: fx.project, domainId: fx.domain },
        expect: 200,
      });
      await call("getTrustProfileByDomain", {
        params: { domain: "trust.acme.example" },
        expect: 200,
      });
      await call("deleteProjectDomain", {
        params: { projectId: fx.project, domainId: fx.domain },
        expect: 204,
      });
      const hooks = { projectId: fx.project };
      const hook = await call("createWebhook", {
        params: hooks,
        json: {
          url: "https://93.184.215.14/hooks",
          events: ["version.published"],
          signing: "hmac",
        },
        expect: 201,
      });
      await call("createWebhook", {
        params: hooks,
        json: { url: "https://10.0.0.1/hooks", events: ["version.published"] },
        expect: 400,
      });
      const hookItem = { ...hooks, webhookId: hook.webhook.id };
      await call("listWebhooks", { params: hooks, expect: 200 });
      await call("getWebhook", { params: hookItem, expect: 200 });
      await call("updateWebhook", { params: hookItem, json: { description: "SIEM" }, expect: 200 });
      await call("rotateWebhookSecret", { params: hookItem, expect: 200 });
      const ping = await call("testWebhook", { params: hookItem, expect: 202 });
      await call("listWebhookDeliveries", { params: hookItem, expect: 200 });
      await call("redeliverWebhook", {
        params: { ...hookItem, deliveryId: ping.delivery.id },
        expect: 409,
      });
      await call("deleteWebhook", { params: hookItem, expect: 200 });
      await call("getWebhook", { params: hookItem, expect: 404 });
      await call("rotateCollectorSecret", {
        params: { id: fx.project, collectorId: fx.collector },
        expect: 200,
      });
      await call("revokeCollector", {
        params: { id: fx.project, collectorId: fx.collector },
        expect: 200,
      });
      fx.human = fx.invitee;
      const membership = await call("acceptInvitation", {
        params: { token: fx.invitation },
        expect: 200,
      });
      await call("removeMember", {
        params: { organizationId: fx.org, userId: membership.membership.userId },
        expect: 204,
      });
      await call("signupForm", { expect: 200 });
      await call("signupSubmit", {
        form: { csrf: "x", email: "a@b.test", name: "A", password: "long enough password" },
        expect: 400,
      });
      await call("authorize", {
        query: {
          response_type: "code",
          client_id: "dashboard",
          redirect_uri: "http://127.0.0.1:9/cb",
          code_challenge: "a".repeat(43),
          code_challenge_method: "S256",
        },
        expect: 200,
      });
      await call("authorizeSubmit", {
        form: {
          response_type: "code",
          client_id: "nobody",
          redirect_uri: "http://127.0.0.1:9/cb",
          csrf: "x",
          email: "a@b.test",
          password: "x",
        },
        expect: 400,
      });
      await call("requestSignInLink", {
        form: {
          response_type: "code",
          client_id: "dashboard",
          redirect_uri: "http://127.0.0.1:9/cb",
          code_challenge: "a".repeat(43),
          code_challenge_method: "S256",
          csrf: "x",
          email: "a@b.test",
        },
        expect: 400,
      });
      await call("openSignInLink", { params: { token: "x".repeat(43) }, expect: 410 });
      await call("useSignInLink", { params: { token: "x".repeat(43) }, expect: 410 });
      await call("token", {
        form: { grant_type: "refresh_token", refresh_token: "nope" },
        expect: 400,
      });
      await call("revokeToken", {
        form: { token: "tpr_nope", client_id: "dashboard" },
        expect: 200,
      });
      await call("revokeToken", { form: { client_id: "dashboard" }, expect: 400 });
      for (
        const id of [
          "getApiCatalog",
          "getMcpManifest",
          "getMcpServerCards",
          "getAiCatalog",
          "getMcpServerCard",
          "getAiPluginManifest",
          "getLlmsTxt",
          "getRobotsTxt",
          "getAgentInstructionsMarkdown",
          "getAgentInstructions",
          "getSetupGuideMarkdown",
          "getSetupGuide",
        ]
      ) await call(id, { expect: 200 });
      await call("postMcpMessage", {
        headers: { accept: "application/json, text/event-stream" },
        json: {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            // fixed-instant: the MCP protocol revision's name, not a time
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "contract", version: "1" },
          },
        },
        expect: 200,
      });
      await call("getMcpStream", { expect: 405 });
      await call("deleteMcpSession", { expect: 405 });
    });

    await t.step("retention: settings, a pruning run, usage", async () => {
      fx.human = fx.owner;
      await exerciseRetention(call, fx);
    });

    await t.step("deletion: scheduled, read and undone; erase links; accounts", async () => {
      fx.human = fx.owner;
      await exerciseDeletion(call, fx);
    });

    await t.step("every documented operation was exercised", () => {
      const missing = [...ops.keys()].filter((id) => !covered.has(id));
      assert.deepEqual(missing, []);
    });

    await t.step(
      "every secured operation answers 401 without credentials, as documented",
      async () => {
        for (const [operationId, op] of ops) {
          // `{}` among the requirements: credentials are optional (MCP reads public data
          // without them, a buyer token adds what it was granted).
          const security = op.operation.security ?? [];
          if (!security.length || security.some((s) => Object.keys(s as object).length === 0)) {
            continue;
          }
          const path = op.path.replace(/\{[^}]+\}/g, crypto.randomUUID());
          const res = await fetch(new URL(path, server.baseUrl), { method: op.method });
          const body = await res.json();
          assert.equal(res.status, 401, operationId);
          assert.deepEqual(
            validate(op, 401, res.headers.get("content-type") ?? "", body),
            [],
            operationId,
          );
          unauthenticated.add(operationId);
        }
        assert.ok(unauthenticated.size >= 30);
      },
    );
  } finally {
    await dns.close();
  }
});
