/**
 * How an answer of the library is shown outside: its citations resolved against what the
 * organization publishes, its Markdown made safe, and the request address of a restricted one.
 *
 * Cited certifications must be the organization's; publicly, a citation resolves to the
 * certification's framework and status as the trust center shows them (a project-scoped one
 * only while its project is public). A project whose deletion is scheduled is withdrawn: no
 * citation names it, its controls, its documents or its certifications until the deletion is
 * undone (src/serve/public_read.ts).
 */
import type { Config } from "../config.ts";
import type { Citation, PublicAnswer, PublicCitation, TrustAnswer } from "../domain/answers.ts";
import type { ControlState } from "../domain/control.ts";
import type { Organization, Project } from "../domain/workspace.ts";
import type { Markdown } from "../lib/load_markdown.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import { listControlsByProject } from "../store/controls.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getLatestPublication } from "../store/publications.ts";
import { withdrawnProjectIds } from "./public_read.ts";
import { publicCertificationsOf } from "./certifications.ts";
import { listedDocuments, presentPublic } from "./documents.ts";

/** What citations resolve against: public projects' controls and states, listed documents. */
export interface CitationIndex {
  controls: Map<string, { project: Project; name: string; state: ControlState | null }>;
  documents: Map<string, { title: string; url: string | null }>;
  certifications: Map<string, { title: string; url: string }>;
}

export async function citationIndex(
  kv: Deno.Kv,
  config: Pick<Config, "baseUrl">,
  org: Organization,
): Promise<CitationIndex> {
  const controls: CitationIndex["controls"] = new Map();
  const all = await listProjectsByOrganization(kv, org.id);
  const withdrawn = await withdrawnProjectIds(kv, all.map((p) => p.id));
  const withdrawnSlugs = new Set(all.filter((p) => withdrawn.has(p.id)).map((p) => p.slug));
  const projects = all.filter((p) => p.visibility === "public" && !withdrawn.has(p.id));
  await Promise.all(projects.map(async (project) => {
    const publication = await getLatestPublication(kv, project.id);
    if (!publication) return;
    for (const control of await listControlsByProject(kv, project.id)) {
      const state = publication.states[control.key];
      if (state === undefined) continue;
      controls.set(control.id, { project, name: control.publicName, state });
    }
  }));
  const documents: CitationIndex["documents"] = new Map();
  for (const item of await listedDocuments(kv, org.id)) {
    if (item.project && withdrawn.has(item.project.id)) continue;
    const shown = presentPublic(config, org, item);
    documents.set(shown.id, {
      title: shown.title,
      url: shown.downloadUrl ?? shown.requestAccessUrl,
    });
  }
  const certifications: CitationIndex["certifications"] = new Map();
  const shown = await publicCertificationsOf(kv, {
    config,
    organization: org,
    scope: { organization: true },
    now: new Date(),
  });
  for (const c of shown) {
    if (c.project && withdrawnSlugs.has(c.project.slug)) continue;
    certifications.set(c.id, {
      title: `${c.frameworkName} (${c.status.replace("_", " ")})`,
      url: `${trustCenterUrl(config as Config, org.slug)}/certifications`,
    });
  }
  return { controls, documents, certifications };
}

/** The citations the public may see; the others (private, unpublished, gone) are left out. */
function resolveCitations(
  citations: readonly Citation[],
  index: CitationIndex,
  config: Pick<Config, "baseUrl">,
): PublicCitation[] {
  const resolved: PublicCitation[] = [];
  for (const citation of citations) {
    if (citation.kind === "control") {
      const control = index.controls.get(citation.id);
      if (!control) continue;
      resolved.push({
        ...citation,
        title: control.name,
        url: publicUrls(config, control.project.slug).page,
        project: { slug: control.project.slug, name: control.project.name },
        state: control.state,
      });
    } else if (citation.kind === "document") {
      const document = index.documents.get(citation.id);
      if (!document) continue;
      resolved.push({
        ...citation,
        title: document.title,
        url: document.url,
        project: null,
        state: null,
      });
    } else {
      const certification = index.certifications.get(citation.id);
      if (!certification) continue;
      resolved.push({ ...citation, ...certification, project: null, state: null });
    }
  }
  return resolved;
}

/** The request form's address, preselecting the restricted answers. */
export function answersAccessUrl(config: Config, orgSlug: string): string {
  return `${trustCenterUrl(config, orgSlug)}/documents/request?answers=1`;
}

export function presentAnswer(
  answer: TrustAnswer,
  context: {
    index: CitationIndex;
    config: Config;
    requestUrl: string | null;
    markdown: Pick<Markdown, "renderSafeMarkdown" | "neutralizeMarkdown">;
  },
): PublicAnswer {
  const open = answer.visibility === "public";
  // The Markdown is rewritten as safely as the HTML (raw HTML as text, only http(s) and mailto
  // links), as updates' bodies are: the JSON, the Markdown page, the exports and the MCP tool
  // carry it to readers that may render it with HTML on.
  return {
    id: answer.id,
    question: answer.question,
    category: answer.category,
    visibility: answer.visibility,
    questionnaireRefs: answer.questionnaireRefs,
    answer: open ? context.markdown.neutralizeMarkdown(answer.answer) : null,
    answerHtml: open ? context.markdown.renderSafeMarkdown(answer.answer) : null,
    citations: open ? resolveCitations(answer.citations, context.index, context.config) : null,
    requestAccessUrl: open ? null : context.requestUrl,
    updatedAt: answer.updatedAt,
  };
}
