/** CycloneDX VEX (`vulnerabilities[].analysis.state`) read into VEX statements. */
import { isObject, type JsonObject, lower, own } from "../_read.ts";
import type { VexReading, VexSource, VexStatement, VexStatus } from "../vex.ts";
import { asList, instant, text } from "./_values.ts";

const CYCLONEDX_STATES: Record<string, VexStatus> = {
  not_affected: "not_affected",
  false_positive: "not_affected",
  resolved: "fixed",
  resolved_with_pedigree: "fixed",
  exploitable: "affected",
  in_triage: "under_investigation",
};

export function readCycloneDx(doc: JsonObject): VexReading {
  const format = "cyclonedx-vex";
  const metadata = isObject(own(doc, "metadata")) ? own(doc, "metadata") as JsonObject : {};
  const source: VexSource = {
    format,
    id: text(own(doc, "serialNumber")) ?? "(no serialNumber)",
    author: cycloneDxAuthor(metadata),
  };
  const refs = new Map<string, string[]>();
  collectBomRefs([own(metadata, "component"), ...asList(own(doc, "components"))], refs);
  const statements: VexStatement[] = [];
  for (const [i, vuln] of asList(own(doc, "vulnerabilities")).entries()) {
    if (!isObject(vuln)) return { format, error: `vulnerabilities[${i}] is not an object` };
    const analysis = own(vuln, "analysis");
    if (!isObject(analysis)) continue;
    const status = CYCLONEDX_STATES[lower(own(analysis, "state")) ?? ""];
    if (status === undefined) {
      return { format, error: `vulnerabilities[${i}].analysis.state is not a CycloneDX state` };
    }
    const vulnerability = [
      text(own(vuln, "id")),
      ...asList(own(vuln, "references")).map((r) => isObject(r) ? text(own(r, "id")) : null),
    ].filter((s): s is string => s !== null);
    if (vulnerability.length === 0) return { format, error: `vulnerabilities[${i}] has no id` };
    const products = asList(own(vuln, "affects"))
      .map((a) => isObject(a) ? text(own(a, "ref")) : null)
      .filter((ref): ref is string => ref !== null)
      .map((ref) => ({ ids: refs.get(ref) ?? bomLinkIds(ref), subcomponents: [] }));
    statements.push({
      vulnerability,
      products,
      status,
      timestamp: instant(own(analysis, "lastUpdated")) ?? instant(own(vuln, "updated")) ??
        instant(own(vuln, "published")) ?? instant(own(metadata, "timestamp")),
      source,
    });
  }
  return { format, source, statements };
}

function cycloneDxAuthor(metadata: JsonObject): string | null {
  const authors = asList(own(metadata, "authors"));
  const first = authors.length > 0 && isObject(authors[0]) ? text(own(authors[0], "name")) : null;
  if (first) return first;
  for (const field of ["manufacturer", "manufacture", "supplier"]) {
    const party = own(metadata, field);
    if (isObject(party) && text(own(party, "name"))) return text(own(party, "name"));
  }
  return null;
}

/** bom-ref → identifiers (purl, cpe, name@version) for the components, recursively. */
function collectBomRefs(components: unknown[], into: Map<string, string[]>, depth = 0): void {
  if (depth > 32) return;
  for (const c of components) {
    if (!isObject(c)) continue;
    const ref = text(own(c, "bom-ref"));
    const name = text(own(c, "name"));
    const version = text(own(c, "version"));
    const ids = [text(own(c, "purl")), text(own(c, "cpe"))]
      .concat(name && version ? [`${name}@${version}`] : [])
      .filter((s): s is string => s !== null);
    if (ref) into.set(ref, ids.length > 0 ? ids : [ref]);
    collectBomRefs(asList(own(c, "components")), into, depth + 1);
  }
}

/** A reference outside the document: a BOM-Link's fragment (often a purl), or the ref itself. */
function bomLinkIds(ref: string): string[] {
  if (!ref.startsWith("urn:cdx:") || !ref.includes("#")) return [ref];
  const fragment = ref.slice(ref.indexOf("#") + 1);
  try {
    return [decodeURIComponent(fragment)];
  } catch {
    return [fragment];
  }
}
