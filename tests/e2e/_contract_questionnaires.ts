/**
 * The contract test's pass over questionnaire automation: a buyer's CAIQ v4.0.3 workbook
 * uploaded (and a file that is none refused), listed, read, renamed, its rows reviewed (accept,
 * edit, bulk-accept id matches), an answer saved back, the gap list in JSON and CSV, the answered
 * file, its signed manifest, the share as unlisted restricted documents, deletion, and the public
 * matching route the MCP tool answer_questionnaire shares.
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

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** Exercises every questionnaire operation on its happy path, and a few refusals. */
export async function exerciseQuestionnaires(call: Call, fx: Record<string, string>) {
  const org = { organizationId: fx.org };
  const answer = await call("addAnswer", {
    params: org,
    json: {
      question: "Are audit and assurance policies documented and approved?",
      answer: "Yes. The audit policy is approved by the board every year.",
      category: "Audit",
      visibility: "public",
      questionnaireRefs: [{ questionnaire: "caiq-v4", id: "A&A-01.1" }],
    },
    expect: 201,
  });
  const workbook = await Deno.readFile(
    new URL("../fixtures/questionnaires/caiq_v4.0.3.xlsx", import.meta.url),
  );
  await call("uploadQuestionnaire", {
    params: org,
    body: new TextEncoder().encode("%PDF-1.7\n") as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/octet-stream" },
    expect: 415,
  });
  const uploaded = await call("uploadQuestionnaire", {
    params: org,
    query: { name: "Globex CAIQ" },
    body: workbook as Uint8Array<ArrayBuffer>,
    headers: { "content-type": XLSX },
    expect: 201,
  });
  const item = { ...org, questionnaireId: uploaded.questionnaire.id };
  await call("listQuestionnaires", { params: org, query: { limit: "10" }, expect: 200 });
  await call("listQuestionnaires", { params: org, query: { cursor: "nope" }, expect: 400 });
  await call("getQuestionnaire", { params: item, expect: 200 });
  await call("getQuestionnaire", {
    params: { ...org, questionnaireId: crypto.randomUUID() },
    expect: 404,
  });
  await call("updateQuestionnaire", { params: item, json: { name: "Globex review" }, expect: 200 });
  await call("updateQuestionnaire", { params: item, json: {}, expect: 400 });
  // A question made a heading and back (the file read again each time), and refusals.
  await call("classifyQuestionnaireRow", {
    params: { ...item, key: "1:4" },
    json: { kind: "heading" },
    expect: 200,
  });
  await call("classifyQuestionnaireRow", {
    params: { ...item, key: "1:4" },
    json: { kind: "question" },
    expect: 200,
  });
  await call("classifyQuestionnaireRow", {
    params: { ...item, key: "1:9999" },
    json: { kind: "question" },
    expect: 404,
  });
  await call("classifyQuestionnaireRow", {
    params: { ...item, key: "1:4" },
    json: { kind: "maybe" },
    expect: 400,
  });
  const { rows } = await call("listQuestionnaireRows", {
    params: item,
    query: { status: "all", limit: "200" },
    expect: 200,
  });
  const byId = rows.find((r: { best: { by: string } | null }) => r.best?.by === "id");
  const edited = rows.find((r: { key: string }) => r.key !== byId.key);
  await call("decideQuestionnaireRow", {
    params: { ...item, key: edited.key },
    json: { state: "edited", answer: "Yes, *every* year." },
    expect: 200,
  });
  await call("decideQuestionnaireRow", {
    params: { ...item, key: edited.key },
    json: { state: "maybe" },
    expect: 400,
  });
  await call("acceptQuestionnaireIdMatches", { params: item, expect: 200 });
  await call("acceptQuestionnaireRows", { params: item, json: { minScore: 0.5 }, expect: 200 });
  await call("acceptQuestionnaireRows", {
    params: item,
    json: { keys: [byId.key] },
    expect: 200,
  });
  await call("acceptQuestionnaireRows", { params: item, json: { minScore: 2 }, expect: 400 });
  await call("saveQuestionnaireAnswer", {
    params: { ...item, key: byId.key },
    json: { category: "Audit", visibility: "public" },
    expect: 200,
  });
  await call("saveQuestionnaireAnswer", {
    params: { ...item, key: "999:1" },
    json: { category: "Audit", visibility: "public" },
    expect: 404,
  });
  await call("getQuestionnaireGaps", { params: item, expect: 200 });
  await call("getQuestionnaireGaps", { params: item, query: { format: "csv" }, expect: 200 });
  await call("exportQuestionnaire", { params: item, expect: 200 });
  await call("getQuestionnaireManifest", { params: item, expect: 200 });
  const shared = await call("shareQuestionnaire", { params: item, expect: 201 });
  await call("answerQuestionnaire", {
    params: { orgSlug: fx.orgSlug },
    json: { questions: [{ text: "Is the audit policy approved?", id: "A&A-01.1" }] },
    expect: 200,
  });
  await call("answerQuestionnaire", {
    params: { orgSlug: fx.orgSlug },
    json: { questions: [] },
    expect: 400,
  });
  await call("answerQuestionnaire", {
    params: { orgSlug: "nobody" },
    json: { questions: [{ text: "Do you encrypt data?" }] },
    expect: 404,
  });
  await call("deleteQuestionnaire", { params: item, expect: 204 });
  await call("deleteQuestionnaire", { params: item, expect: 404 });
  for (const document of [shared.document, shared.manifest]) {
    await call("removeDocument", { params: { ...org, documentId: document.id }, expect: 200 });
  }
  // An answered file into the knowledge base: previewed, refused with another digest, imported.
  const answered = new TextEncoder().encode(
    "Ref,Question,Response\nSEC-1,Do you keep an SBOM for every release?,Yes, in CycloneDX.\n",
  ) as Uint8Array<ArrayBuffer>;
  const csv = { "content-type": "text/csv" };
  const preview = await call("previewAnswerImport", {
    params: org,
    body: answered,
    headers: csv,
    expect: 200,
  });
  await call("previewAnswerImport", {
    params: org,
    body: new TextEncoder().encode("%PDF-1.7\n") as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/octet-stream" },
    expect: 415,
  });
  await call("importAnswers", {
    params: org,
    query: { digest: "0".repeat(64) },
    body: answered,
    headers: csv,
    expect: 409,
  });
  const imported = await call("importAnswers", {
    params: org,
    query: { digest: preview.digest, visibility: "public" },
    body: answered,
    headers: csv,
    expect: 201,
  });
  for (const id of imported.created) {
    await call("removeAnswer", { params: { ...org, answerId: id }, expect: 200 });
  }
  await call("removeAnswer", { params: { ...org, answerId: answer.answer.id }, expect: 200 });
}
