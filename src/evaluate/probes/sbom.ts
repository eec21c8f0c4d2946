/**
 * Probe for `evidence.sbom`: is the payload a CycloneDX or SPDX JSON document?
 */
import { count, isObject, type JsonObject, notAnObject, own, show } from "./_read.ts";
import { fail, inFormat, pass, type ProbeResult, unknown } from "./types.ts";

const CYCLONEDX_VERSION = /^1\.\d+$/;
const SPDX_VERSION = /^SPDX-\d+\.\d+$/;

/**
 * Answers whether `payload` is a software bill of materials: a CycloneDX JSON document
 * (`bomFormat: "CycloneDX"`, a `1.x` `specVersion`, a `components[]` list of objects with
 * a `name`) or an SPDX 2.x JSON document (`spdxVersion: "SPDX-2.x"`, a `packages[]` list
 * of objects with a `name`). An empty list passes: an SBOM of a dependency-free artifact
 * is still an SBOM. A document that names one of the formats but breaks it fails; a
 * payload in neither format is `unknown`.
 */
export function isSbomDocument(payload: unknown): ProbeResult {
  if (!isObject(payload)) return unknown(notAnObject(payload, "a CycloneDX or SPDX document"));
  if (own(payload, "bomFormat") === "CycloneDX") {
    return inFormat("cyclonedx", readCycloneDx(payload));
  }
  if (own(payload, "bomFormat") !== undefined) return readCycloneDx(payload);
  const spdx = own(payload, "spdxVersion");
  if (typeof spdx === "string" && spdx.startsWith("SPDX-")) {
    return inFormat("spdx", readSpdx(payload));
  }
  if (spdx !== undefined) return readSpdx(payload);
  return unknown("Payload has neither a CycloneDX bomFormat nor an SPDX spdxVersion");
}

function readCycloneDx(doc: JsonObject): ProbeResult {
  const format = own(doc, "bomFormat");
  if (format !== "CycloneDX") return fail(`bomFormat is ${show(format)}, expected "CycloneDX"`);
  const version = own(doc, "specVersion");
  if (typeof version !== "string" || !CYCLONEDX_VERSION.test(version)) {
    return fail(`CycloneDX specVersion is ${show(version)}, expected "1.x"`);
  }
  const problem = listProblem(own(doc, "components"), "components", "component");
  if (problem) return fail(`CycloneDX ${version} document ${problem}`);
  const n = (own(doc, "components") as unknown[]).length;
  return pass(`CycloneDX ${version} document listing ${count(n, "component")}`);
}

function readSpdx(doc: JsonObject): ProbeResult {
  const version = own(doc, "spdxVersion");
  if (typeof version !== "string" || !SPDX_VERSION.test(version)) {
    return fail(`spdxVersion is ${show(version)}, expected "SPDX-2.x"`);
  }
  const problem = listProblem(own(doc, "packages"), "packages", "package");
  if (problem) return fail(`${version} document ${problem}`);
  const n = (own(doc, "packages") as unknown[]).length;
  return pass(`${version} document listing ${count(n, "package")}`);
}

/** Why `list` is not an array of named entries, or null when it is. */
function listProblem(list: unknown, field: string, noun: string): string | null {
  if (!Array.isArray(list)) return `has no ${field}[] list`;
  const bad = list.findIndex((entry) => !isObject(entry) || typeof own(entry, "name") !== "string");
  return bad === -1 ? null : `has a ${noun} without a name at index ${bad}`;
}
