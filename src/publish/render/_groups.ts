/**
 * Controls as a reader meets them: in buyer categories (supply chain, vulnerability
 * management, runtime, policy, liveness) from the probe registry, in that order, each
 * keeping the published order of its controls. Shared by the HTML and Markdown pages.
 */
import type { PublishedTrustControl } from "../../domain/publish.ts";
import { BUYER_GROUPS } from "../../evaluate/mod.ts";

/** One heading of the controls section and the controls under it. */
export interface ControlGroup {
  id: string;
  label: string;
  about: string;
  controls: PublishedTrustControl[];
}

/** Versions published before controls carried a group keep them under one heading. */
const UNGROUPED = { id: "other", label: "Other controls", about: "Controls without a category" };

/**
 * Controls that never reported (unknown, without any evidence ever received) are listed apart,
 * after every category, so a reader meets what is reported first (issue 35); a control the
 * vendor marks required stays in its category, since it counts in the headline's verdict.
 */
const NOT_REPORTED = {
  id: "not-reported",
  label: "Not reported yet",
  about:
    "No evidence has ever arrived for these controls, so they say nothing yet about the project",
};

/** Whether `control` never reported: unknown, and no evidence has ever arrived for it. */
export function neverReported(control: PublishedTrustControl): boolean {
  return control.state === "unknown" && control.latestEvidenceAt === null;
}

/**
 * The non-empty groups of `controls`, in the registry's order, ungrouped ones next, and the
 * controls that never reported last, in a group of their own.
 */
export function groupControls(controls: readonly PublishedTrustControl[]): ControlGroup[] {
  const groups: ControlGroup[] = [...BUYER_GROUPS, UNGROUPED, NOT_REPORTED].map((g) => ({
    id: g.id,
    label: g.label,
    about: g.about,
    controls: [],
  }));
  const byId = new Map(groups.map((g) => [g.id, g]));
  for (const control of controls) {
    const apart = neverReported(control) && control.required !== true;
    const id = apart ? NOT_REPORTED.id : control.group ?? UNGROUPED.id;
    byId.get(id)!.controls.push(control);
  }
  return groups.filter((g) => g.controls.length > 0);
}

/** The first characters of a digest ("sha256:9f86d081884c"), enough to compare by eye. */
export function shortDigest(digest: string): string {
  const colon = digest.indexOf(":");
  return digest.length > colon + 13 ? `${digest.slice(0, colon + 13)}…` : digest;
}
