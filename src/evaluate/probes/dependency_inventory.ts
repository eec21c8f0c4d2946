/**
 * Probe for `evidence.dependency_inventory`: does the payload list at least one package?
 */
import { count, isObject, notAnObject, own } from "./_read.ts";
import type { EvidenceFormat } from "../../domain/evidence_formats.ts";
import { fail, inFormat, pass, type ProbeResult, unknown } from "./types.ts";

/** Fields that hold a package list, in the order they are read. */
const LIST_FIELDS = ["packages", "components", "dependencies"] as const;

/**
 * Answers whether `payload` is a non-empty dependency inventory: an object whose
 * `packages`, `components` or `dependencies` field is a non-empty array, or an object map
 * of package name to details (as `dependencies` in package.json or `packages` in an npm
 * lockfile, whose `""` entry is the project itself and is not counted). Fields are read in
 * the order packages, components, dependencies, and the first non-empty one decides; a
 * CycloneDX document's `dependencies` is its dependency graph, not a package list, so only
 * its `components` count. When every present field is empty the probe fails, and when none
 * of them is present (or one is neither a list nor a map) it is `unknown`.
 */
export function listsDependencies(payload: unknown): ProbeResult {
  if (!isObject(payload)) return unknown(notAnObject(payload, "a dependency inventory"));
  let found = false;
  const cycloneDx = own(payload, "bomFormat") === "CycloneDX";
  for (const field of LIST_FIELDS) {
    if (cycloneDx && field === "dependencies") continue;
    const list = own(payload, field);
    if (list === undefined) continue;
    const size = sizeOf(list);
    if (size === null) return unknown(`${field} is neither a list nor a map of packages`);
    found = true;
    if (size > 0) {
      return inFormat(
        formatOf(payload),
        pass(`Inventory lists ${count(size, "package")} in ${field}`),
      );
    }
  }
  return found
    ? inFormat(formatOf(payload), fail("Inventory lists no package"))
    : unknown("Payload has no packages, dependencies or components field");
}

/** Which kind of package list an inventory is, for the record's reading. */
function formatOf(payload: Record<string, unknown>): EvidenceFormat {
  if (own(payload, "bomFormat") === "CycloneDX") return "cyclonedx";
  return typeof own(payload, "lockfileVersion") === "number" ? "npm-lockfile" : "package-list";
}

function sizeOf(list: unknown): number | null {
  if (Array.isArray(list)) return list.length;
  if (isObject(list)) return Object.keys(list).filter((name) => name !== "").length;
  return null;
}
