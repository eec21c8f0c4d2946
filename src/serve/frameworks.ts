/**
 * Framework mappings: the catalog of frameworks and criteria, members' mappings of custom
 * controls, and the public framework view of a project's latest version (which published
 * control supports which criterion, with its state and the age of its evidence).
 */
import type { Config } from "../config.ts";
import type { TrustControl } from "../domain/control.ts";
import { badRequest, notFound, validationFailed } from "../domain/errors.ts";
import type {
  ControlCriteria,
  CriterionRef,
  FrameworkCatalog,
  FrameworkControl,
  PublicFrameworkView,
  StoredControlCriteria,
} from "../domain/frameworks.ts";
import type { PublishedTrustProfile } from "../domain/publish.ts";
import { inCatalogOrder } from "../evaluate/catalog.ts";
import {
  CATALOG_CRITERIA,
  criteriaOfControl,
  criterionOf,
  FRAMEWORKS,
  hasCatalogCriteria,
  sortCriteria,
} from "../evaluate/frameworks.ts";
import { publicUrls } from "../publish/urls.ts";
import {
  customCriteria,
  getControlCriteria,
  listControlCriteria,
  putControlCriteria,
} from "../store/control_criteria.ts";
import { getControl, listControlsByProject } from "../store/controls.ts";
import { latestTrustJson } from "./bodies.ts";
import { publicPublication, type PublicReads } from "./public_read.ts";

/** What every framework view and the catalog say about what a mapping means. */
export const MAPPING_NOTICE =
  "A mapping names the criteria a control's evidence supports; it is not an audit opinion and does not say the vendor meets a criterion. Criterion ids are the frameworks' own; titles are this service's short wording, not the standards' text.";

/** Every framework with its criteria, and the default catalog's mappings. */
export function frameworkCatalog(): FrameworkCatalog {
  return {
    frameworks: FRAMEWORKS.map((f) => ({
      id: f.id,
      name: f.name,
      edition: f.edition,
      criteria: f.criteria.map((x) => ({ id: x.id, title: x.title })),
    })),
    catalogMappings: Object.entries(CATALOG_CRITERIA).map(([key, criteria]) => ({
      key,
      criteria: sortCriteria(criteria),
    })),
    notice: MAPPING_NOTICE,
  };
}

/** `refs` checked against the catalog: a 400 naming the first unknown or repeated criterion. */
export function checkCriteria(refs: readonly CriterionRef[]): CriterionRef[] {
  const seen = new Set<string>();
  refs.forEach((ref, i) => {
    if (!criterionOf(ref)) {
      throw validationFailed(
        `criteria.${i}: "${ref.id}" is not a criterion of ${ref.framework} (see GET /public/frameworks)`,
      );
    }
    const key = `${ref.framework}:${ref.id}`;
    if (seen.has(key)) throw validationFailed(`criteria.${i}: ${key} is listed twice`);
    seen.add(key);
  });
  return sortCriteria(refs);
}

function present(
  control: TrustControl,
  stored: StoredControlCriteria | undefined,
): ControlCriteria {
  const catalog = hasCatalogCriteria(control.key);
  return {
    controlId: control.id,
    key: control.key,
    publicName: control.publicName,
    source: catalog ? "catalog" : "custom",
    criteria: catalog ? sortCriteria(CATALOG_CRITERIA[control.key]) : stored?.criteria ?? [],
    updatedAt: catalog ? null : stored?.updatedAt ?? null,
  };
}

/** Every control of the project with its criteria, in catalog order. */
export async function controlMappings(kv: Deno.Kv, projectId: string): Promise<ControlCriteria[]> {
  const [controls, stored] = await Promise.all([
    listControlsByProject(kv, projectId),
    listControlCriteria(kv, projectId),
  ]);
  return inCatalogOrder(controls).map((control) => present(control, stored.get(control.key)));
}

/**
 * Replaces a custom control's mapping. A default catalog control keeps the built-in mapping
 * (400); unknown or repeated criteria are 400; a mapping equal to the stored one is not
 * written again. Nothing is stored when refused.
 */
export async function setControlCriteria(
  kv: Deno.Kv,
  options: {
    projectId: string;
    controlId: string;
    criteria: readonly CriterionRef[];
    actor: { userId: string; email: string | null };
    now: Date;
  },
): Promise<ControlCriteria> {
  const control = await getControl(kv, options.projectId, options.controlId);
  if (!control) throw notFound("No such control");
  if (hasCatalogCriteria(control.key)) {
    throw badRequest(
      `${control.key} is a default catalog control: it keeps the built-in mapping (GET /public/frameworks); only custom controls are mapped by hand`,
    );
  }
  const criteria = checkCriteria(options.criteria);
  const current = await getControlCriteria(kv, options.projectId, control.key);
  if (JSON.stringify(current?.criteria ?? []) === JSON.stringify(criteria)) {
    return present(control, current ?? undefined);
  }
  const stored = await putControlCriteria(kv, options.projectId, {
    key: control.key,
    criteria,
    updatedAt: options.now.toISOString(),
    updatedBy: options.actor,
  });
  return present(control, stored ?? undefined);
}

/** The framework view of published controls, given each control's criteria. */
export function frameworkView(
  profile: Pick<PublishedTrustProfile, "project" | "version" | "publishedAt" | "controls">,
  custom: ReadonlyMap<string, readonly CriterionRef[]>,
  url: string,
): PublicFrameworkView {
  const byCriterion = new Map<string, FrameworkControl[]>();
  for (const control of profile.controls) {
    for (const ref of criteriaOfControl(control.key, custom)) {
      const key = `${ref.framework}:${ref.id}`;
      const list = byCriterion.get(key) ?? [];
      list.push({
        key: control.key,
        name: control.name,
        state: control.state,
        evidenceObservedAt: control.evidence?.observedAt ?? control.latestEvidenceAt,
        freshUntil: control.freshUntil,
      });
      byCriterion.set(key, list);
    }
  }
  const frameworks = FRAMEWORKS.map((framework) => {
    const criteria = framework.criteria
      .filter((x) => byCriterion.has(`${framework.id}:${x.id}`))
      .map((x) => ({
        id: x.id,
        title: x.title,
        controls: byCriterion.get(`${framework.id}:${x.id}`)!,
      }));
    return {
      id: framework.id,
      name: framework.name,
      edition: framework.edition,
      criteriaMapped: criteria.length,
      criteriaPassing: criteria.filter((x) => x.controls.every((c) => c.state === "pass")).length,
      criteria,
    };
  });
  return {
    project: { slug: profile.project.slug, name: profile.project.name },
    version: profile.version,
    publishedAt: profile.publishedAt,
    frameworks,
    notice: MAPPING_NOTICE,
    url,
  };
}

/** The framework view of a public project's latest version (404 as the trust page). */
export async function publicFrameworkView(
  reads: PublicReads & { config: Pick<Config, "baseUrl"> },
  slug: string,
): Promise<PublicFrameworkView> {
  const { project } = await publicPublication(reads, slug);
  const [trustJson, custom] = await Promise.all([
    latestTrustJson(reads, slug),
    customCriteria(reads.kv, project.id),
  ]);
  const profile = JSON.parse(trustJson) as PublishedTrustProfile;
  return frameworkView(profile, custom, publicUrls(reads.config, project.slug).frameworks);
}

/**
 * Per framework with a mapped criterion: how many criteria the published controls support,
 * how many fully pass, and each criterion's controls (for the coverage line's wording).
 */
export function frameworkSummary(
  states: Readonly<Record<string, PublishedTrustProfile["controls"][number]["state"]>>,
  custom: ReadonlyMap<string, readonly CriterionRef[]>,
): {
  id: string;
  name: string;
  mapped: number;
  passing: number;
  criteria: PublicFrameworkView["frameworks"][number]["criteria"];
}[] {
  const view = frameworkView(
    {
      project: { slug: "", name: "", hostedSubdomain: null },
      version: 1,
      publishedAt: new Date(0).toISOString(),
      controls: Object.entries(states).map(([key, state]) => ({
        key,
        name: key,
        state,
        category: "evidence",
        confidence: 0,
        latestEvidenceAt: null,
        freshUntil: null,
        nextCheckAt: null,
      })),
    },
    custom,
    "http://invalid/",
  );
  return view.frameworks.filter((f) => f.criteriaMapped > 0)
    .map((f) => ({
      id: f.id,
      name: f.name,
      mapped: f.criteriaMapped,
      passing: f.criteriaPassing,
      criteria: f.criteria,
    }));
}
