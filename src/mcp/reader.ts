/**
 * What the MCP server may read: published data of public projects, through
 * the same public-read functions the HTTP routes use, so a tool result and
 * the route body come from the same lookups and the same stored bytes.
 */
import { assertOrganizationNotGone } from "../serve/public_read.ts";
import type { TrustSignalDetection } from "../domain/collector.ts";
import type { Logger } from "../lib/log.ts";
import type {
  OrganizationTrustCenter,
  PublishedVersionListResponse,
  TrustProfileSearchResponse,
  VersionPageQuery,
} from "../domain/publish.ts";
import { latestProfileEnvelope, latestSignals, latestTrustJson } from "../serve/bodies.ts";
import type { Clock } from "../lib/clock.ts";
import { searchTrustProfiles, versionPage } from "../serve/history.ts";
import type { PublicReads } from "../serve/public_read.ts";
import type { Config } from "../config.ts";
import type { PublicSubprocessors } from "../domain/subprocessors.ts";
import { publicSubprocessors } from "../serve/subprocessors.ts";
import type { PublicTrustUpdates, UpdatePageQuery } from "../domain/updates.ts";
import type { PublicDocuments } from "../domain/documents.ts";
import { publicDocuments } from "../serve/documents.ts";
import { publicUpdates } from "../serve/updates.ts";
import type { PublicCertifications } from "../domain/certifications.ts";
import { publicCertifications } from "../serve/certifications.ts";
import { orgTrustCenter } from "../serve/org_center.ts";
import type { PublicFrameworkView } from "../domain/frameworks.ts";
import type { AnswerSearchQuery, PublicAnswers } from "../domain/answers.ts";
import { publicAnswers } from "../serve/answers.ts";
import type { PublicQuestionnaireMatches } from "../domain/questionnaires.ts";
import { publicQuestionnaireMatches } from "../serve/questionnaire_public.ts";
import { publicFrameworkView } from "../serve/frameworks.ts";

/** Reads of published trust data; each throws the same 404 as HTTP for unknown or private slugs. */
export interface TrustReader {
  /** The exact text of the latest trust.json of a public project. */
  trustJson(projectSlug: string): Promise<string>;
  /** The latest profile envelope of a public project (the JSON of /trust/{projectSlug}). */
  profile(projectSlug: string): Promise<string>;
  /** The latest signal detection of a public project, or null when there is none. */
  signals(projectSlug: string): Promise<TrustSignalDetection | null>;
  /** A page of a public project's versions with their changes (the JSON of /versions). */
  history(projectSlug: string, query: VersionPageQuery): Promise<PublishedVersionListResponse>;
  /** Public, published projects whose name or slug contains `query`. */
  search(query: string): Promise<TrustProfileSearchResponse>;
  /** An organization's public subprocessor list (the JSON of /public/trust/{orgSlug}/subprocessors). */
  subprocessors(orgSlug: string): Promise<PublicSubprocessors>;
  /** An organization's public document list (the JSON of /public/trust/{orgSlug}/documents). */
  documents(orgSlug: string): Promise<PublicDocuments>;
  /** An organization's trust center (the JSON of /public/trust/{orgSlug}). */
  trustCenter(orgSlug: string): Promise<OrganizationTrustCenter>;
  /** An organization's declared certifications (the JSON of /public/trust/{orgSlug}/certifications). */
  certifications(orgSlug: string): Promise<PublicCertifications>;
  /** A page of a public project's updates (the JSON of /trust/{projectSlug}/updates). */
  updates(projectSlug: string, query: UpdatePageQuery): Promise<PublicTrustUpdates>;
  /** A public project's framework view (the JSON of /trust/{projectSlug}/frameworks). */
  frameworks(projectSlug: string): Promise<PublicFrameworkView>;
  /** A page of an organization's answers, searched (the JSON of /public/trust/{orgSlug}/answers). */
  answers(orgSlug: string, query: AnswerSearchQuery): Promise<PublicAnswers>;
  /** A buyer's questions matched (the JSON of POST /public/trust/{orgSlug}/questionnaire-answers). */
  questionnaire(
    orgSlug: string,
    questions: { text: string; id?: string }[],
  ): Promise<PublicQuestionnaireMatches>;
  log: Logger;
}

/**
 * A reader over the app's public reads. Sharing them with the HTTP routes is
 * what keeps "private" and "unknown" answered identically on both surfaces.
 */
export function createTrustReader(
  reads: PublicReads & { log: Logger; config: Config; clock: Clock },
  caller: { client?: string } = {},
): TrustReader {
  // Organization reads answer 410 for a deleted (or being deleted) organization, as its HTTP
  // routes do; project reads check through src/serve/public_read.ts already.
  const live = async <T>(orgSlug: string, read: () => Promise<T>): Promise<T> => {
    await assertOrganizationNotGone(reads.kv, orgSlug);
    return await read();
  };
  return {
    trustJson: (projectSlug) => latestTrustJson(reads, projectSlug),
    profile: (projectSlug) => latestProfileEnvelope(reads, projectSlug),
    signals: (projectSlug) => latestSignals(reads, projectSlug),
    history: async (projectSlug, query) => (await versionPage(reads, projectSlug, query)).body,
    search: (query) => searchTrustProfiles(reads, query),
    subprocessors: (orgSlug) =>
      live(orgSlug, () => publicSubprocessors(reads.kv, orgSlug, { config: reads.config })),
    documents: (orgSlug) =>
      live(orgSlug, async () => {
        const { organizationId: _id, ...list } = await publicDocuments(reads.kv, orgSlug, {
          config: reads.config,
        });
        return list;
      }),
    updates: (projectSlug, query) => publicUpdates(reads, projectSlug, query),
    trustCenter: (orgSlug) =>
      live(
        orgSlug,
        () => orgTrustCenter(reads.kv, orgSlug, { config: reads.config, now: reads.clock.now() }),
      ),
    certifications: (orgSlug) =>
      live(orgSlug, () =>
        publicCertifications(reads.kv, orgSlug, {
          config: reads.config,
          now: reads.clock.now(),
        })),
    frameworks: (projectSlug) => publicFrameworkView(reads, projectSlug),
    answers: (orgSlug, query) =>
      live(orgSlug, async () => {
        const { organizationId: _id, ...list } = await publicAnswers(reads.kv, orgSlug, {
          config: reads.config,
          ...query,
        });
        return list;
      }),
    questionnaire: (orgSlug, questions) =>
      live(
        orgSlug,
        () =>
          publicQuestionnaireMatches(reads, orgSlug, {
            questions,
            now: reads.clock.now(),
            client: caller.client,
          }),
      ),
    log: reads.log,
  };
}
