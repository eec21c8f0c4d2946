/**
 * The contract test's pass over the document operations: upload, list, change, the NDA,
 * settings, the public lists (the organization's and a project's), form and JSON requests, approval, the link and its download,
 * the log, revocation, denial and removal.
 */
import { makePdf } from "../support/documents.ts";

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

/** Exercises every document operation once on its happy path (and a few refusals). */
export async function exerciseDocuments(call: Call, fx: Record<string, string>) {
  const org = { organizationId: fx.org };
  const center = { orgSlug: fx.orgSlug };
  const uploaded = await call("uploadDocument", {
    params: org,
    query: { title: "SOC 2", visibility: "public" },
    body: await makePdf() as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/pdf" },
    expect: 201,
  });
  const doc = { ...org, documentId: uploaded.document.id };
  await call("listDocuments", { params: org, expect: 200 });
  await call("getOrganizationDocuments", { params: center, expect: 200 });
  await call("getOrganizationDocumentsMarkdown", { params: center, expect: 200 });
  const project = { projectSlug: fx.projectSlug };
  await call("getProjectDocuments", { params: project, expect: 200 });
  await call("getProjectDocumentsMarkdown", { params: project, expect: 200 });
  await call("getProjectDocuments", { params: { projectSlug: "no-such-project" }, expect: 404 });
  await call("downloadPublicDocument", {
    params: { ...center, documentId: doc.documentId },
    expect: 200,
  });
  await call("updateDocument", { params: doc, json: { visibility: "restricted" }, expect: 200 });
  await call("downloadPublicDocument", {
    params: { ...center, documentId: doc.documentId },
    expect: 403,
  });
  await call("getNda", { params: org, expect: 200 });
  await call("putNda", { params: org, json: { text: "Confidential." }, expect: 200 });
  await call("getDocumentSettings", { params: org, expect: 200 });
  await call("putDocumentSettings", {
    params: org,
    json: { autoApproveDomains: ["partner.example"] },
    expect: 200,
  });
  await call("accessRequestForm", {
    params: center,
    query: { document: doc.documentId },
    expect: 200,
  });
  const person = { name: "Vera", company: "Customer", ndaVersion: "1", acceptNda: "true" };
  await call("submitAccessRequestForm", {
    params: center,
    form: { ...person, email: "vera@customer.example", documentIds: doc.documentId },
    expect: 200,
  });
  await call("submitAccessRequestForm", {
    params: center,
    form: { ...person, email: "x@customer.example", acceptNda: "" },
    expect: 400,
  });
  const asked = await call("submitAccessRequest", {
    params: center,
    json: {
      ...person,
      email: "jo@customer.example",
      documentIds: [doc.documentId],
      ndaVersion: 1,
      acceptNda: true,
    },
    expect: 202,
  });
  const { requests } = await call("listAccessRequests", { params: org, expect: 200 });
  const vera = requests.find((r: { email: string }) => r.email === "vera@customer.example");
  const approved = await call("approveAccessRequest", {
    params: { ...org, requestId: vera.id },
    json: { expiresInDays: 3 },
    expect: 200,
  });
  await call("denyAccessRequest", { params: { ...org, requestId: asked.id }, expect: 200 });
  await call("denyAccessRequest", { params: { ...org, requestId: asked.id }, expect: 409 });
  const token = approved.link.url.split("/").pop();
  await call("openAccessLink", { params: { token }, expect: 200 });
  await call("downloadThroughAccessLink", {
    params: { token, documentId: doc.documentId },
    expect: 200,
  });
  await call("listDocumentDownloads", { params: org, expect: 200 });
  await call("listAccessLinks", { params: org, expect: 200 });
  await call("revokeAccessLink", { params: { ...org, linkId: approved.link.id }, expect: 200 });
  await call("openAccessLink", { params: { token }, expect: 410 });
  await call("downloadThroughAccessLink", {
    params: { token, documentId: doc.documentId },
    expect: 410,
  });
  await call("removeDocument", { params: doc, expect: 200 });
  await call("removeDocument", { params: doc, expect: 404 });
}
