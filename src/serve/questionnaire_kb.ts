/**
 * The knowledge base a questionnaire is matched against (src/questionnaire/types.ts): the
 * organization's answers, and, from the LATEST PUBLISHED version of each public project (its
 * signed trust.json, never the live state), every control with its state and when its evidence
 * was observed, the framework criteria those controls support, the certifications it declares
 * and the documents it lists. Private projects are never read. Every list is in a fixed order,
 * so the same data gives the same knowledge base, and matching the same suggestions.
 */
import type { Config } from "../config.ts";
import type { TrustAnswer } from "../domain/answers.ts";
import type { PublishedTrustProfile } from "../domain/publish.ts";
import type { Organization } from "../domain/workspace.ts";
import type { KbAnswer, KbControl, KbCriterion, KnowledgeBase } from "../questionnaire/types.ts";
import { compareCodePoints } from "../lib/order.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import { listAnswers } from "../store/answers.ts";
import { listControlsByProject } from "../store/controls.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getLatestPublication } from "../store/publications.ts";
import { publicCertificationsOf } from "./certifications.ts";
import { listedDocuments, presentPublic } from "./documents.ts";
import { publicFrameworkView } from "./frameworks.ts";
import { type PublicReads, withdrawnProjectIds } from "./public_read.ts";

/** The published version a cited control's state comes from. */
export interface PinnedVersion {
  projectSlug: string;
  version: number;
  /** `sha256:<hex>` of that version's trust.json bytes. */
  trustJsonDigest: string;
  trustJsonUrl: string;
}

/** The knowledge base, with the published versions it was read from, by project slug. */
export interface AssembledKnowledgeBase {
  kb: KnowledgeBase;
  versions: Map<string, PinnedVersion>;
  /** Which answer ids are public (restricted ones are shown by question only in public). */
  publicAnswerIds: Set<string>;
  /**
   * The first time after `now` at which the knowledge base changes by itself (an achieved
   * certification expiring), in epoch milliseconds; null when nothing does. Every other change
   * moves the organization's generation (src/store/edge_pages.ts).
   */
  changesAt: number | null;
}

const byCodePoints = <T>(key: (item: T) => string) => (a: T, b: T) =>
  compareCodePoints(key(a), key(b));

function kbAnswer(answer: TrustAnswer): KbAnswer {
  return {
    id: answer.id,
    question: answer.question,
    answer: answer.answer,
    category: answer.category,
    visibility: answer.visibility,
    questionnaireRefs: answer.questionnaireRefs.map((r) => ({
      questionnaire: r.questionnaire,
      id: r.id,
    })),
    citations: answer.citations.map((c) => ({ kind: c.kind, id: c.id })),
    updatedAt: answer.updatedAt,
    ...(answer.aliases?.length
      ? { aliases: answer.aliases.map((a) => ({ text: a.text, ids: [...a.ids] })) }
      : {}),
  };
}

/** The controls and criteria of one public project's latest published version. */
async function publishedProject(
  reads: PublicReads & { config: Pick<Config, "baseUrl"> },
  project: { id: string; slug: string; name: string },
): Promise<{ controls: KbControl[]; criteria: KbCriterion[]; pinned: PinnedVersion } | null> {
  const publication = await getLatestPublication(reads.kv, project.id);
  if (!publication) return null;
  const bytes = await reads.artifacts.bytes(reads.blobs, publication.artifacts.trustJson);
  const profile = JSON.parse(new TextDecoder().decode(bytes)) as PublishedTrustProfile;
  const urls = publicUrls(reads.config, project.slug);
  const ids = new Map(
    (await listControlsByProject(reads.kv, project.id)).map((c) => [c.key, c.id]),
  );
  const url = urls.versionTrustJson(publication.version);
  const controls: KbControl[] = profile.controls.flatMap((control) => {
    const controlId = ids.get(control.key);
    if (!controlId) return [];
    return [{
      projectSlug: project.slug,
      projectName: project.name,
      version: publication.version,
      controlId,
      title: control.name,
      state: control.state,
      evidenceObservedAt: control.evidence?.observedAt ?? control.latestEvidenceAt ?? null,
      url,
    }];
  });
  const view = await publicFrameworkView(reads, project.slug);
  const criteria: KbCriterion[] = view.version !== publication.version ? [] : view.frameworks
    .flatMap((framework) =>
      framework.criteria.map((criterion) => ({
        framework: framework.name,
        criterionId: criterion.id,
        title: criterion.title,
        projectSlug: project.slug,
        controlIds: criterion.controls.flatMap((c) => ids.get(c.key) ?? []).sort(compareCodePoints),
      }))
    );
  return {
    controls,
    criteria,
    pinned: {
      projectSlug: project.slug,
      version: publication.version,
      trustJsonDigest: publication.artifacts.trustJson.digest,
      trustJsonUrl: url,
    },
  };
}

/**
 * The organization's knowledge base as of now. Answers are capped by the answers store
 * (MAX_ANSWERS_PER_ORGANIZATION, 2,000); the projects read are the public ones that published.
 */
export async function assembleKnowledgeBase(
  reads: PublicReads & { config: Pick<Config, "baseUrl"> },
  organization: Organization,
  now: Date,
): Promise<AssembledKnowledgeBase> {
  const { kv, config } = reads;
  // A project whose deletion is scheduled is withdrawn: nothing of it is matched or cited.
  const all = await listProjectsByOrganization(kv, organization.id);
  const withdrawn = await withdrawnProjectIds(kv, all.map((p) => p.id));
  const withdrawnSlugs = new Set(all.filter((p) => withdrawn.has(p.id)).map((p) => p.slug));
  const projects = all.filter((p) => p.visibility === "public" && !withdrawn.has(p.id))
    .sort(byCodePoints((p) => p.slug));
  const published = [];
  for (const project of projects) {
    const read = await publishedProject(reads, project);
    if (read) published.push(read);
  }
  const answers = (await listAnswers(kv, organization.id)).sort(byCodePoints((a) => a.id));
  const declared = (await publicCertificationsOf(kv, {
    config,
    organization,
    scope: { organization: true },
    now,
  })).filter((c) => !(c.project && withdrawnSlugs.has(c.project.slug)));
  const expiries = declared.flatMap((c) =>
    c.status === "achieved" && c.expiresAt ? [Date.parse(c.expiresAt)] : []
  ).filter((at) => at > now.getTime());
  const certifications = declared.map((c) => ({
    id: c.id,
    title: c.frameworkName,
    status: c.status,
    url: `${trustCenterUrl(config as Config, organization.slug)}/certifications`,
  })).sort(byCodePoints((c) => c.id));
  const documents = (await listedDocuments(kv, organization.id)).filter((item) =>
    !(item.project && withdrawn.has(item.project.id))
  ).map((item) => {
    const shown = presentPublic(config, organization, item);
    return { id: shown.id, title: shown.title, url: shown.downloadUrl ?? shown.requestAccessUrl };
  }).sort(byCodePoints((d) => d.id));
  return {
    kb: {
      answers: answers.map(kbAnswer),
      controls: published.flatMap((p) => p.controls),
      criteria: published.flatMap((p) => p.criteria),
      certifications,
      documents,
    },
    versions: new Map(published.map((p) => [p.pinned.projectSlug, p.pinned])),
    publicAnswerIds: new Set(answers.filter((a) => a.visibility === "public").map((a) => a.id)),
    changesAt: expiries.length > 0 ? Math.min(...expiries) : null,
  };
}
