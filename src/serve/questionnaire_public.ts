/**
 * A buyer's own questions matched against an organization's public knowledge base (the body of
 * POST /public/trust/{orgSlug}/questionnaire-answers and of the MCP tool answer_questionnaire):
 * public answers with their text (as safe Markdown) and citations; restricted answers matched by
 * their question and questionnaire ids only, and shown by question, without text or citations;
 * controls only of public projects' latest published versions. No sign-in; the work is bounded
 * by MAX_MCP_QUESTIONS questions against at most MAX_ANSWERS_PER_ORGANIZATION answers.
 */
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import type { PublicQuestionnaireMatches } from "../domain/questionnaires.ts";
import type { KnowledgeBase, Suggestion } from "../questionnaire/types.ts";
import { loadMarkdown } from "../lib/load_markdown.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { loadEngines } from "./questionnaire_engines.ts";
import { assembleKnowledgeBase } from "./questionnaire_kb.ts";
import type { PublicReads } from "./public_read.ts";

/** The knowledge base with restricted answers' text and citations taken out. */
function publicKnowledgeBase(kb: KnowledgeBase): KnowledgeBase {
  return {
    ...kb,
    answers: kb.answers.map((a) =>
      a.visibility === "public" ? a : { ...a, answer: "", citations: [] }
    ),
  };
}

/** A suggestion as the public may see it. */
function shown(
  suggestion: Suggestion,
  restricted: ReadonlySet<string>,
  neutralize: (markdown: string) => string,
): Suggestion {
  const source = suggestion.source;
  if (source.kind === "answer" && restricted.has(source.answerId)) {
    return {
      ...suggestion,
      text: "",
      citations: suggestion.citations.filter((c) => c.kind === "answer"),
    };
  }
  return { ...suggestion, text: neutralize(suggestion.text) };
}

/** The public matches of `questions` (404 for an unknown organization). */
export async function publicQuestionnaireMatches(
  reads: PublicReads & { config: Config },
  orgSlug: string,
  options: { questions: { text: string; id?: string }[]; now: Date },
): Promise<PublicQuestionnaireMatches> {
  const organization = await getOrganizationBySlug(reads.kv, orgSlug);
  if (!organization) throw notFound("No public trust center by that name");
  const [engines, markdown, assembled] = await Promise.all([
    loadEngines(),
    loadMarkdown(),
    assembleKnowledgeBase(reads, organization, options.now),
  ]);
  const restricted = new Set(
    assembled.kb.answers.filter((a) => a.visibility !== "public").map((a) => a.id),
  );
  const matches = engines.match(
    publicKnowledgeBase(assembled.kb),
    options.questions.map((q, i) => ({ key: String(i), id: q.id ?? null, text: q.text })),
  );
  const results = matches.map((match, index) => {
    const suggestions = match.suggestions.map((s) =>
      shown(s, restricted, markdown.neutralizeMarkdown)
    );
    return {
      index,
      id: options.questions[index].id ?? null,
      question: options.questions[index].text,
      best: match.best ? shown(match.best, restricted, markdown.neutralizeMarkdown) : null,
      suggestions,
    };
  });
  return {
    organization: { name: organization.name, slug: organization.slug },
    threshold: engines.threshold,
    results,
    answered: results.filter((r) => r.best !== null).length,
    url: `${trustCenterUrl(reads.config, organization.slug)}/answers`,
  };
}
