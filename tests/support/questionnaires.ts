/**
 * Questionnaire tests' shared setting: the fixture files, and Acme with a published public
 * project and a small knowledge base (two answers claiming A&A-01.1, one matched by its text,
 * a restricted one).
 */
import assert from "node:assert/strict";
import type { TestApp } from "./app.ts";
import { team } from "./fixtures.ts";

/** The JSON body of a response with `status`. */
export async function ok(res: Response, status = 200) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return text ? JSON.parse(text) : null;
}

/** A file of tests/fixtures/questionnaires. */
export function fixture(name: string): Promise<Uint8Array> {
  return Deno.readFile(new URL(`../fixtures/questionnaires/${name}`, import.meta.url));
}

/** Acme with a published public project and a small knowledge base. */
export async function knowledgeBase(ctx: TestApp) {
  const t = await team(ctx);
  const publish = `/projects/${t.project.id}/publish`;
  await ok(await ctx.call("POST", publish, { token: t.owner }), 201);
  const { controls } = await ok(
    await ctx.call("GET", `/projects/${t.project.id}/controls`, { token: t.owner }),
  );
  const sbom = controls.find((c: { key: string }) => c.key === "evidence.sbom");
  const answers = `/organizations/${t.orgId}/answers`;
  const add = async (json: Record<string, unknown>) =>
    (await ok(await ctx.call("POST", answers, { token: t.owner, json }), 201)).answer;
  const audit = await add({
    question: "Are your audit and assurance policies documented and approved?",
    answer: "Yes. Our **audit policy** is approved by the board every year.",
    category: "Audit",
    visibility: "public",
    citations: [{ kind: "control", id: sbom.id }],
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "A&A-01.1" }],
  });
  const duplicate = await add({
    question: "Is the audit policy documented?",
    answer: "Yes, in the compliance handbook.",
    category: "Audit",
    visibility: "public",
    citations: [{ kind: "control", id: sbom.id }],
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "A&A-01.1" }],
  });
  const independent = await add({
    question: "Do independent auditors assess you every year?",
    answer: "Yes: an independent auditor performs a SOC 2 Type II audit yearly.",
    category: "Audit",
    visibility: "public",
  });
  const restricted = await add({
    question: "Who performed your last penetration test?",
    answer: "Example Labs, in March.",
    category: "Testing",
    visibility: "restricted",
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "IAM-02.1" }],
  });
  return { ...t, sbom, audit, duplicate, independent, restricted };
}
