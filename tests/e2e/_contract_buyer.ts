/**
 * The contract test's pass over what buyers ask first: the framework catalog, members'
 * mappings of custom controls, the public framework view, and the answers with their search
 * and exports.
 */
type Call = (operationId: string, spec: {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: BodyInit;
  headers?: Record<string, string>;
  auth?: "human" | "collector" | "none";
  expect: number;
  // deno-lint-ignore no-explicit-any
}) => Promise<any>;

/** Exercises every framework operation on its happy path, and a few refusals. */
export async function exerciseFrameworks(call: Call, fx: Record<string, string>) {
  const slug = { projectSlug: fx.projectSlug };
  await call("getFrameworkCatalog", { expect: 200 });
  const { mappings } = await call("listControlCriteria", {
    params: { id: fx.project },
    expect: 200,
  });
  const custom = mappings.find((m: { source: string }) => m.source === "custom");
  const item = { id: fx.project, controlId: custom.controlId };
  await call("putControlCriteria", {
    params: item,
    json: { criteria: [{ framework: "iso27001", id: "A.8.8" }] },
    expect: 200,
  });
  await call("putControlCriteria", {
    params: item,
    json: { criteria: [{ framework: "iso27001", id: "Z.1" }] },
    expect: 400,
  });
  await call("putControlCriteria", {
    params: { id: fx.project, controlId: crypto.randomUUID() },
    json: { criteria: [] },
    expect: 404,
  });
  await call("getTrustFrameworks", { params: slug, expect: 200 });
  await call("getTrustFrameworks", { params: { projectSlug: "nobody" }, expect: 404 });
  await call("getTrustFrameworksPage", { params: slug, expect: 200 });
  await call("getTrustFrameworksMarkdown", { params: slug, expect: 200 });
}

/** Exercises every answer operation on its happy path, and a few refusals. */
export async function exerciseAnswers(call: Call, fx: Record<string, string>) {
  const org = { organizationId: fx.org };
  const center = { orgSlug: fx.orgSlug };
  const cited = await call("createCertification", {
    params: org,
    json: { framework: "soc2-type2", status: "in_progress" },
    expect: 201,
  });
  const added = await call("addAnswer", {
    params: org,
    json: {
      question: "Do you encrypt data at rest?",
      answer: "Yes, with **AES-256**.",
      category: "Encryption",
      visibility: "public",
      questionnaireRefs: [{ questionnaire: "caiq-v4", id: "CEK-03.1" }],
      citations: [{ kind: "certification", id: cited.certification.id }],
    },
    expect: 201,
  });
  await call("addAnswer", {
    params: org,
    json: { question: "x", answer: "y", category: "z", visibility: "public", extra: 1 },
    expect: 400,
  });
  const item = { ...org, answerId: added.answer.id };
  await call("updateAnswer", { params: item, json: { visibility: "restricted" }, expect: 200 });
  await call("updateAnswer", { params: item, json: {}, expect: 400 });
  await call("listAnswers", { params: org, expect: 200 });
  await call("getOrganizationAnswers", { params: center, query: { q: "encrypt" }, expect: 200 });
  await call("getOrganizationAnswers", { params: { orgSlug: "nobody" }, expect: 404 });
  await call("getOrganizationAnswersPage", { params: center, expect: 200 });
  await call("getOrganizationAnswersMarkdown", { params: center, expect: 200 });
  const wanted = { questionnaire: "caiq-v4", ids: "CEK-03.1,IAM-02.1" };
  await call("exportOrganizationAnswersCsv", { params: center, query: wanted, expect: 200 });
  await call("exportOrganizationAnswersCsv", { params: center, query: { ids: "A" }, expect: 400 });
  await call("exportOrganizationAnswersXlsx", { params: center, query: wanted, expect: 200 });
  await call("removeAnswer", { params: item, expect: 200 });
  await call("removeAnswer", { params: item, expect: 404 });
}
