/**
 * Every mutating operation of /openapi.json as a valid request over the differential world
 * (tests/support/differential_world.ts), by operationId, in the group (one world each) that
 * performs it. A route added to the API without an entry here fails the suite.
 */
import { makePdf } from "../support/documents.ts";
import type { Answer, Call, DifferentialWorld } from "../support/differential_world.ts";
import { authorize, signUp, tokenRequest } from "../support/builtin_login.ts";
import { ACCESS_GROUP, ACCESS_OPERATIONS } from "./_operations_access.ts";

/** A request the table makes: its concrete path and what it sends; `expect`: its status. */
export interface Step {
  path: string;
  call?: Call;
  /** The answer expected (default: any 2xx). */
  expect?: number;
  /** Performs the request another way (forms of the sign-in flow); returns its status. */
  perform?: () => Promise<number>;
}

type Entry = (w: DifferentialWorld) => Step | Promise<Step>;

const json = (token: string, body?: unknown): Call => ({ token, json: body });

/** An answered questionnaire imported into the knowledge base (a public answer created). */
const ANSWERED_CSV = "Ref,Question,Response\n" +
  "SEC-1,Do you keep an SBOM for every release?,Yes, in CycloneDX for every build.\n";

async function firstDelivery(w: DifferentialWorld): Promise<string> {
  const t = w.target;
  const list: Answer = await w.send(
    "GET",
    `/projects/${t.projectId}/webhooks/${t.webhookId}/deliveries`,
    { token: w.tokens.owner },
  );
  const id = list.json?.deliveries?.[0]?.id;
  if (!id) throw new Error(`no delivery to redeliver: ${list.text}`);
  return id;
}

async function rowKey(w: DifferentialWorld): Promise<string> {
  const t = w.target;
  const res = await w.ok(
    "GET",
    `/organizations/${t.orgId}/questionnaires/${t.questionnaireId}`,
    { token: w.tokens.owner },
  );
  void res;
  // Rows are keyed `sheet:row` (0-based sheet, 1-based row): the CSV's third question.
  return "0:4";
}

/** operationId → the request that performs it. */
export const OPERATIONS: Record<string, Entry> = {
  // Organization-wide data.
  updateOrganizationProfile: (w) => ({
    path: `/organizations/${w.target.orgId}/profile`,
    call: json(w.tokens.owner, { description: "Cloud software for logistics and freight." }),
  }),
  putOrganizationLogo: (w) => ({
    path: `/organizations/${w.target.orgId}/logo`,
    call: {
      token: w.tokens.owner,
      body: Deno.readFileSync(new URL("../fixtures/logos/logo.png", import.meta.url)),
      type: "image/png",
    },
  }),
  deleteOrganizationLogo: (w) => ({
    path: `/organizations/${w.target.orgId}/logo`,
    call: { token: w.tokens.owner },
  }),
  addSubprocessor: (w) => ({
    path: `/organizations/${w.target.orgId}/subprocessors`,
    call: json(w.tokens.owner, {
      name: "Cloudflare",
      purpose: "CDN",
      location: "United States",
      website: "https://vendor.example",
    }),
  }),
  updateSubprocessor: (w) => ({
    path: `/organizations/${w.target.orgId}/subprocessors/${w.target.subprocessorIds[0]}`,
    call: json(w.tokens.owner, { location: "Finland" }),
  }),
  removeSubprocessor: (w) => ({
    path: `/organizations/${w.target.orgId}/subprocessors/${w.target.subprocessorIds[1]}`,
    call: { token: w.tokens.owner },
  }),
  createCertification: (w) => ({
    path: `/organizations/${w.target.orgId}/certifications`,
    call: json(w.tokens.owner, { framework: "iso27017", status: "in_progress" }),
  }),
  updateCertification: (w) => ({
    path: `/organizations/${w.target.orgId}/certifications/${w.target.certificationIds[1]}`,
    call: json(w.tokens.owner, { status: "achieved" }),
  }),
  deleteCertification: (w) => ({
    path: `/organizations/${w.target.orgId}/certifications/${w.target.certificationIds[3]}`,
    call: { token: w.tokens.owner },
  }),
  addAnswer: (w) => ({
    path: `/organizations/${w.target.orgId}/answers`,
    call: json(w.tokens.owner, {
      question: "Do you run background checks?",
      answer: "Yes, for every employee.",
      category: "People",
      visibility: "public",
    }),
  }),
  updateAnswer: (w) => ({
    path: `/organizations/${w.target.orgId}/answers/${w.target.answerIds[2]}`,
    call: json(w.tokens.owner, { answer: "Yes, for two years." }),
  }),
  removeAnswer: (w) => ({
    path: `/organizations/${w.target.orgId}/answers/${w.target.answerIds[1]}`,
    call: { token: w.tokens.owner },
  }),
  uploadDocument: async (w) => ({
    path: `/organizations/${w.target.orgId}/documents?title=Pentest%20summary&visibility=public`,
    call: {
      token: w.tokens.owner,
      body: await makePdf("Pentest") as BodyInit,
      type: "application/pdf",
    },
  }),
  updateDocument: (w) => ({
    path: `/organizations/${w.target.orgId}/documents/${w.target.documentIds.public}`,
    call: json(w.tokens.owner, { title: "Security overview 2" }),
  }),
  removeDocument: (w) => ({
    path: `/organizations/${w.target.orgId}/documents/${w.target.documentIds.public}`,
    call: { token: w.tokens.owner },
  }),
  putNda: (w) => ({
    path: `/organizations/${w.target.orgId}/nda`,
    call: json(w.tokens.owner, { text: "Keep it confidential, version two." }),
  }),
  putDocumentSettings: (w) => ({
    path: `/organizations/${w.target.orgId}/document-settings`,
    call: json(w.tokens.owner, { autoApproveDomains: ["customer.example"] }),
  }),
  approveAccessRequest: (w) => ({
    path: `/organizations/${w.target.orgId}/access-requests/${w.target.accessRequestId}/approve`,
    call: json(w.tokens.owner, { expiresInDays: 3 }),
  }),
  denyAccessRequest: async (w) => {
    const asked = await w.ok("POST", `/public/trust/${w.target.orgSlug}/access-requests`, {
      json: {
        name: "Xena",
        company: "Other",
        email: "xena@other.example",
        documentIds: [w.target.documentIds.restricted],
        ndaVersion: 2,
        acceptNda: true,
      },
    });
    return {
      path: `/organizations/${w.target.orgId}/access-requests/${asked.id}/deny`,
      call: json(w.tokens.owner, {}),
    };
  },
  revokeAccessLink: (w) => ({
    path: `/organizations/${w.target.orgId}/access-links/${w.target.accessLinkId}/revoke`,
    call: { token: w.tokens.owner },
  }),
  removeSubscriber: (w) => ({
    path: `/organizations/${w.target.orgId}/subscribers/${w.target.subscriptionIds[0]}`,
    call: { token: w.tokens.owner },
  }),
  uploadQuestionnaire: (w) => ({
    path: `/organizations/${w.target.orgId}/questionnaires?name=Second`,
    call: {
      token: w.tokens.owner,
      body: "ID,Question,Answer\nQ1,Do you back up data?,\n",
      type: "text/csv",
    },
  }),
  updateQuestionnaire: (w) => ({
    path: `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}`,
    call: json(w.tokens.owner, { name: "Buyer (renamed)" }),
  }),
  decideQuestionnaireRow: async (w) => ({
    path:
      `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}/rows/${await rowKey(
        w,
      )}`,
    call: json(w.tokens.owner, { state: "edited", answer: "Yes, every build." }),
  }),
  acceptQuestionnaireIdMatches: (w) => ({
    path:
      `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}/accept-id-matches`,
    call: { token: w.tokens.owner },
  }),
  acceptQuestionnaireRows: (w) => ({
    path: `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}/accept-rows`,
    call: json(w.tokens.owner, { minScore: 0.9 }),
  }),
  saveQuestionnaireAnswer: async (w) => ({
    path:
      `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}/rows/${await rowKey(
        w,
      )}/save-answer`,
    call: json(w.tokens.owner, { category: "Security", visibility: "public" }),
  }),
  classifyQuestionnaireRow: async (w) => ({
    path:
      `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}/rows/${await rowKey(
        w,
      )}/kind`,
    call: json(w.tokens.owner, { kind: "heading" }),
  }),
  previewAnswerImport: (w) => ({
    path: `/organizations/${w.target.orgId}/answer-imports/preview`,
    call: { token: w.tokens.owner, body: ANSWERED_CSV, type: "text/csv" },
  }),
  importAnswers: async (w) => {
    const preview = await w.ok("POST", `/organizations/${w.target.orgId}/answer-imports/preview`, {
      token: w.tokens.owner,
      body: ANSWERED_CSV,
      type: "text/csv",
    });
    return {
      path:
        `/organizations/${w.target.orgId}/answer-imports?digest=${preview.digest}&visibility=public`,
      call: { token: w.tokens.owner, body: ANSWERED_CSV, type: "text/csv" },
      expect: 201,
    };
  },
  shareQuestionnaire: (w) => ({
    path: `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}/share`,
    call: { token: w.tokens.owner },
  }),
  deleteQuestionnaire: (w) => ({
    path: `/organizations/${w.target.orgId}/questionnaires/${w.target.questionnaireId}`,
    call: { token: w.tokens.owner },
  }),
  inviteMember: (w) => ({
    path: `/organizations/${w.target.orgId}/invitations`,
    call: json(w.tokens.owner, { email: "newcomer@example.com", role: "member" }),
  }),
  acceptInvitation: (w) => ({
    path: `/invitations/${w.target.invitationToken}/accept`,
    call: { token: w.tokens.outsider },
  }),
  removeMember: (w) => ({
    path: `/organizations/${w.target.orgId}/members/${w.target.memberUserId}`,
    call: { token: w.tokens.owner },
  }),
  setOrganizationRetention: (w) => ({
    path: `/organizations/${w.target.orgId}/retention`,
    call: json(w.tokens.owner, { days: 30, recordsPerType: null }),
  }),
  retryDeadJob: (w) => ({
    // The world has no dead job: the request is well formed and names an unknown one.
    path: `/organizations/${w.target.orgId}/jobs/${crypto.randomUUID()}/retry`,
    call: { token: w.tokens.owner },
    expect: 404,
  }),

  // One project's data.
  createProject: (w) => ({
    path: "/projects",
    call: json(w.tokens.owner, {
      organizationId: w.target.orgId,
      name: "Globex Edge",
      slug: "globex-edge",
      visibility: "public",
    }),
  }),
  updateProject: (w) => ({
    path: `/projects/${w.target.secondId}`,
    call: json(w.tokens.owner, { name: "Globex Research" }),
  }),
  setSigstoreIdentities: (w) => ({
    path: `/projects/${w.target.projectId}/sigstore-identities`,
    call: json(w.tokens.owner, {
      identities: [{
        issuer: "https://token.actions.githubusercontent.com",
        subject: "https://github.com/globex/api/.github/workflows/release.yml@refs/tags/*",
      }],
    }),
  }),
  setProvenanceSubjects: (w) => ({
    path: `/projects/${w.target.projectId}/provenance-subjects`,
    call: json(w.tokens.owner, { requireMatch: true, digestsFrom: ["sbom"], artifactNames: [] }),
  }),
  createProjectControl: (w) => ({
    path: `/projects/${w.target.projectId}/controls`,
    call: json(w.tokens.owner, {
      key: "custom.new",
      publicName: "new",
      evidenceType: "policy_result",
      rule: { path: "ok", op: "truthy" },
    }),
  }),
  updateProjectControl: (w) => ({
    path: `/projects/${w.target.projectId}/controls/${w.target.controlIds["custom.fail"]}`,
    call: json(w.tokens.owner, { publicName: "failing check", required: true }),
  }),
  putControlCriteria: (w) => ({
    path: `/projects/${w.target.projectId}/controls/${w.target.controlIds["custom.fail"]}/criteria`,
    call: json(w.tokens.owner, { criteria: [{ framework: "iso27001", id: "A.8.9" }] }),
  }),
  recomputeEvaluations: (w) => ({
    path: `/projects/${w.target.projectId}/evaluations/recompute`,
    call: { token: w.tokens.owner },
  }),
  createCollector: (w) => ({
    path: `/projects/${w.target.projectId}/collectors`,
    call: json(w.tokens.owner, { name: "nightly" }),
  }),
  rotateCollectorSecret: async (w) => {
    const made = await w.ok("POST", `/projects/${w.target.secondId}/collectors`, {
      token: w.tokens.owner,
      json: { name: "to-rotate" },
    });
    return {
      path: `/projects/${w.target.secondId}/collectors/${made.collector.id}/rotate`,
      call: { token: w.tokens.owner },
    };
  },
  revokeCollector: async (w) => {
    const made = await w.ok("POST", `/projects/${w.target.secondId}/collectors`, {
      token: w.tokens.owner,
      json: { name: "to-revoke" },
    });
    return {
      path: `/projects/${w.target.secondId}/collectors/${made.collector.id}/revoke`,
      call: { token: w.tokens.owner },
    };
  },
  collectorHeartbeat: (w) => ({
    path: `/collectors/${w.target.collector.id}/heartbeat`,
    call: json(w.target.collector.secret, { sourceRef: "ci" }),
  }),
  ingestEvidence: (w) => ({
    path: "/ingest/evidence",
    call: json(w.target.collector.secret, {
      projectId: w.target.projectId,
      evidenceType: "policy_result",
      sourceType: "github_actions",
      sourceRef: "globex/api@refs/heads/main",
      observedAt: new Date(w.clock.now().getTime() - 1000).toISOString(),
      payload: { ok: false },
    }),
  }),
  ingestEvidenceBatch: (w) => ({
    path: "/ingest/evidence/batch",
    call: json(w.target.collector.secret, {
      projectId: w.target.projectId,
      records: [{
        evidenceType: "dependency_inventory",
        sourceType: "github_actions",
        sourceRef: "globex/api@refs/heads/main",
        observedAt: new Date(w.clock.now().getTime() - 1000).toISOString(),
        payload: { ok: true },
      }],
    }),
  }),
  ingestSignals: (w) => ({
    path: "/ingest/signals",
    call: json(w.target.collector.secret, {
      projectId: w.target.projectId,
      detection: {
        detectedAt: new Date(w.clock.now().getTime() - 1000).toISOString(),
        commitSha: "fedcba9876543210fedcba9876543210fedcba98",
        ciCd: { detected: true, tools: ["gitlab-ci"] },
        monitoring: { detected: true, tools: ["datadog"] },
        authProvider: { detected: false },
        cloudProvider: { detected: true, providers: ["gcp"] },
        securityContact: { detected: true, email: "psirt@globex.example" },
      },
    }),
  }),
  publishProject: (w) => ({
    path: `/projects/${w.target.secondId}/publish`,
    call: { token: w.tokens.owner },
  }),
  addProjectDomain: (w) => ({
    path: `/projects/${w.target.secondId}/domains`,
    call: json(w.tokens.owner, { domain: "labs.globex.example" }),
  }),
  verifyProjectDomain: (w) => {
    const d = w.target.domain;
    w.dns.records.set(`_service.${d.name}`, [[`trust-verification=${d.token}`]]);
    return {
      path: `/projects/${w.target.projectId}/domains/${d.id}/verify`,
      call: { token: w.tokens.owner },
    };
  },
  deleteProjectDomain: (w) => ({
    path: `/projects/${w.target.projectId}/domains/${w.target.domain.id}`,
    call: { token: w.tokens.owner },
  }),
  postProjectUpdate: (w) => ({
    path: `/projects/${w.target.projectId}/updates`,
    call: json(w.tokens.owner, { kind: "incident", title: "API errors", body: "Investigating." }),
  }),
  editProjectUpdate: (w) => ({
    path: `/projects/${w.target.projectId}/updates/${w.target.updateIds[0]}`,
    call: json(w.tokens.owner, { resolved: true }),
  }),
  deleteProjectUpdate: (w) => ({
    path: `/projects/${w.target.projectId}/updates/${w.target.updateIds[3]}`,
    call: { token: w.tokens.owner },
  }),
  createWebhook: (w) => ({
    path: `/projects/${w.target.secondId}/webhooks`,
    call: json(w.tokens.owner, {
      url: "http://127.0.0.1:9/labs-hook",
      events: ["version.published"],
    }),
  }),
  updateWebhook: (w) => ({
    path: `/projects/${w.target.projectId}/webhooks/${w.target.webhookId}`,
    call: json(w.tokens.owner, { description: "Buyer's SIEM" }),
  }),
  rotateWebhookSecret: (w) => ({
    path: `/projects/${w.target.projectId}/webhooks/${w.target.webhookId}/rotate-secret`,
    call: { token: w.tokens.owner },
  }),
  testWebhook: (w) => ({
    path: `/projects/${w.target.projectId}/webhooks/${w.target.webhookId}/test`,
    call: { token: w.tokens.owner },
  }),
  redeliverWebhook: async (w) => ({
    path:
      `/projects/${w.target.projectId}/webhooks/${w.target.webhookId}/deliveries/${await firstDelivery(
        w,
      )}/redeliver`,
    call: { token: w.tokens.owner },
  }),
  deleteWebhook: (w) => ({
    path: `/projects/${w.target.projectId}/webhooks/${w.target.webhookId}`,
    call: { token: w.tokens.owner },
  }),
  setProjectRetention: (w) => ({
    path: `/projects/${w.target.projectId}/retention`,
    call: json(w.tokens.owner, { days: null, recordsPerType: 1 }),
  }),
  pruneProjectEvidence: (w) => ({
    path: `/projects/${w.target.projectId}/retention/prune`,
    call: { token: w.tokens.owner },
  }),

  // Buyers, subscribers and agents.
  submitAccessRequestForm: (w) => ({
    path: `/public/trust/${w.target.orgSlug}/documents/request`,
    call: {
      body: new URLSearchParams({
        name: "Yuri",
        company: "Buyer",
        email: "yuri@buyer.example",
        documentIds: w.target.documentIds.restricted,
        ndaVersion: "1",
        acceptNda: "true",
      }),
      type: "application/x-www-form-urlencoded",
      headers: { accept: "text/html", origin: w.server.baseUrl },
    },
  }),
  submitAccessRequest: (w) => ({
    path: `/public/trust/${w.target.orgSlug}/access-requests`,
    call: {
      json: {
        name: "Zoe",
        company: "Buyer",
        email: "zoe@customer.example",
        documentIds: [w.target.documentIds.restricted],
        ndaVersion: 1,
        acceptNda: true,
      },
    },
  }),
  answerQuestionnaire: (w) => ({
    path: `/public/trust/${w.target.orgSlug}/questionnaire-answers`,
    call: { json: { questions: [{ text: "Do you encrypt data at rest?" }] } },
  }),
  eraseAccessVisitor: (w) => ({
    path: `/documents/access/${w.target.accessToken}/erase`,
    call: { headers: { origin: w.server.baseUrl } },
  }),
  subscribeToOrganization: (w) => ({
    path: `/public/trust/${w.target.orgSlug}/subscriptions`,
    call: { json: { email: "quinn@subscriber.example" } },
  }),
  subscribeToProject: (w) => ({
    path: `/trust/${w.target.secondSlug}/subscriptions`,
    call: { json: { email: "quinn@subscriber.example" } },
  }),
  confirmSubscription: (w) => ({
    path: `/subscriptions/confirm/${w.target.confirmTokens[0]}`,
    call: { headers: { origin: w.server.baseUrl } },
  }),
  unsubscribe: (w) => ({
    path: `/unsubscribe/${w.target.unsubscribeTokens[0]}`,
    call: { headers: { origin: w.server.baseUrl } },
  }),
  eraseSubscriber: (w) => ({
    path: `/unsubscribe/${w.target.unsubscribeTokens[w.target.unsubscribeTokens.length - 1]}/erase`,
    call: { headers: { origin: w.server.baseUrl } },
  }),
  postMcpMessage: (w) => ({
    path: "/mcp",
    call: {
      json: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_trust_signals", arguments: { projectSlug: w.target.projectSlug } },
      },
      headers: { accept: "application/json, text/event-stream" },
    },
  }),
  deleteMcpSession: () => ({
    // The MCP server is stateless: DELETE is documented and refused with 405, changing nothing.
    path: "/mcp",
    call: { headers: { "mcp-session-id": crypto.randomUUID() } },
    expect: 405,
  }),

  // Accounts and workspaces.
  createOrganization: (w) => ({
    path: "/organizations",
    call: json(w.tokens.owner, { name: "Globex Holdings" }),
  }),
  bootstrapWorkspace: async (w) => ({
    path: "/onboarding/bootstrap",
    call: json(await w.server.tokenFor("newbie"), {
      workspaceName: "Newbie",
      projectName: "Newbie Cloud",
      projectSlug: "newbie",
      projectVisibility: "public",
    }),
  }),
  deleteMyAccount: async (w) => ({
    path: "/me",
    // Confirmed with the account's email address (tokens name `<sub>@example.com`).
    call: json(await w.server.tokenFor("leaver"), { confirm: "leaver@example.com" }),
  }),
  signupSubmit: (w) => ({
    path: "/signup",
    perform: async () => {
      const res = await signUp(w.server.baseUrl, "", {
        email: "signer@example.com",
        name: "Signer",
        password: "correct horse battery staple",
      });
      await res.body?.cancel();
      return res.status === 303 ? 201 : res.status;
    },
  }),
  authorizeSubmit: (w) => ({
    path: "/oauth2/authorize",
    perform: async () => {
      const { response, code } = await authorize(w.server.baseUrl, {
        email: "signer@example.com",
        password: "correct horse battery staple",
      });
      await response.body?.cancel();
      return code ? 200 : response.status;
    },
  }),
  token: (w) => ({
    path: "/oauth2/token",
    perform: async () => {
      const { response, code, verifier, redirectUri } = await authorize(w.server.baseUrl, {
        email: "signer@example.com",
        password: "correct horse battery staple",
      });
      await response.body?.cancel();
      const res = await tokenRequest(w.server.baseUrl, {
        grant_type: "authorization_code",
        code: code ?? "",
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: "dashboard",
      });
      const body = await res.json();
      w.target.refreshToken = body.refresh_token;
      return res.status;
    },
  }),
  revokeToken: (w) => ({
    path: "/oauth2/revoke",
    call: {
      body: new URLSearchParams({ token: w.target.refreshToken ?? "", client_id: "dashboard" }),
      type: "application/x-www-form-urlencoded",
    },
  }),
  requestSignInLink: (w) => ({
    path: "/oauth2/authorize/email-link",
    perform: async () => {
      const page = await fetch(`${w.server.baseUrl}/oauth2/authorize/email-link`);
      const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const html = await page.text();
      const csrf = html.match(/name="csrf" value="([^"]*)"/)?.[1] ?? "";
      const res = await fetch(`${w.server.baseUrl}/oauth2/authorize/email-link`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ csrf, email: "signer@example.com" }),
      });
      await res.body?.cancel();
      return res.status;
    },
    // Offered only while password sign-in is locked for the address: this one is not, so the
    // form is refused and nothing changes.
    expect: 400,
  }),
  useSignInLink: () => ({
    // A link is single-use and mailed; a well-formed unknown one changes nothing.
    path: `/oauth2/sign-in-link/${"A".repeat(43)}`,
    call: { body: new URLSearchParams({}), type: "application/x-www-form-urlencoded" },
    expect: 410,
  }),

  // Deletion, scheduled and cancelled (the job's completion is in jobs_test.ts).
  scheduleProjectDeletion: (w) => ({
    path: `/projects/${w.target.secondId}/deletion`,
    call: json(w.tokens.owner, { confirm: w.target.secondSlug }),
  }),
  cancelProjectDeletion: (w) => ({
    path: `/projects/${w.target.secondId}/deletion`,
    call: { token: w.tokens.owner },
  }),
  scheduleOrganizationDeletion: (w) => ({
    path: `/organizations/${w.target.orgId}/deletion`,
    call: json(w.tokens.owner, { confirm: w.target.orgSlug }),
  }),
  cancelOrganizationDeletion: (w) => ({
    path: `/organizations/${w.target.orgId}/deletion`,
    call: { token: w.tokens.owner },
  }),
  ...ACCESS_OPERATIONS,
};

/** The groups, each run on its own world in this order (destructive ones last). */
export const GROUPS: Record<string, string[]> = {
  organization: [
    "updateOrganizationProfile",
    "putOrganizationLogo",
    "addSubprocessor",
    "updateSubprocessor",
    "removeSubprocessor",
    "createCertification",
    "updateCertification",
    "deleteCertification",
    "addAnswer",
    "updateAnswer",
    "removeAnswer",
    "previewAnswerImport",
    "importAnswers",
    "uploadDocument",
    "updateDocument",
    "putNda",
    "putDocumentSettings",
    "approveAccessRequest",
    "denyAccessRequest",
    "revokeAccessLink",
    "removeSubscriber",
    "uploadQuestionnaire",
    "updateQuestionnaire",
    "decideQuestionnaireRow",
    "acceptQuestionnaireIdMatches",
    "acceptQuestionnaireRows",
    "saveQuestionnaireAnswer",
    "shareQuestionnaire",
    "classifyQuestionnaireRow",
    "deleteQuestionnaire",
    "inviteMember",
    "acceptInvitation",
    "removeMember",
    "setOrganizationRetention",
    "retryDeadJob",
    "removeDocument",
    "deleteOrganizationLogo",
  ],
  project: [
    "createProject",
    "updateProject",
    "setSigstoreIdentities",
    "setProvenanceSubjects",
    "createProjectControl",
    "updateProjectControl",
    "putControlCriteria",
    "recomputeEvaluations",
    "createCollector",
    "rotateCollectorSecret",
    "revokeCollector",
    "collectorHeartbeat",
    "ingestEvidence",
    "ingestEvidenceBatch",
    "ingestSignals",
    "publishProject",
    "addProjectDomain",
    "verifyProjectDomain",
    "deleteProjectDomain",
    "postProjectUpdate",
    "editProjectUpdate",
    "deleteProjectUpdate",
    "createWebhook",
    "updateWebhook",
    "rotateWebhookSecret",
    "testWebhook",
    "redeliverWebhook",
    "deleteWebhook",
    "setProjectRetention",
    "pruneProjectEvidence",
  ],
  visitors: [
    "submitAccessRequestForm",
    "submitAccessRequest",
    "answerQuestionnaire",
    "eraseAccessVisitor",
    "subscribeToOrganization",
    "subscribeToProject",
    "confirmSubscription",
    "unsubscribe",
    "eraseSubscriber",
    "postMcpMessage",
    "deleteMcpSession",
    "createOrganization",
    "bootstrapWorkspace",
    "deleteMyAccount",
    "signupSubmit",
    "authorizeSubmit",
    "token",
    "revokeToken",
    "requestSignInLink",
    "useSignInLink",
    "scheduleProjectDeletion",
    "cancelProjectDeletion",
    "scheduleOrganizationDeletion",
    "cancelOrganizationDeletion",
  ],
  access: ACCESS_GROUP,
};

/** Performs one step; returns the answer's status and text. */
export async function perform(
  w: DifferentialWorld,
  method: string,
  step: Step,
): Promise<{ status: number; text: string }> {
  if (step.perform) return { status: await step.perform(), text: "" };
  const answer = await w.send(method, step.path, step.call);
  return { status: answer.status, text: answer.text };
}
