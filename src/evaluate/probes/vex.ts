/**
 * VEX documents read into one statement shape: OpenVEX (v0.0.1 and v0.2.0), CycloneDX VEX
 * (`vulnerabilities[].analysis.state`) and CSAF VEX (`product_tree` with
 * `vulnerabilities[].product_status`). Matching them to scan findings is in vex_match.ts.
 */
import { count, isObject, type JsonObject, lower, own } from "./_read.ts";
import type { EvidenceFormat } from "../../domain/evidence_formats.ts";

/** The four VEX statuses (CycloneDX and CSAF statuses are mapped onto them). */
export type VexStatus = "not_affected" | "affected" | "fixed" | "under_investigation";

/** Identifiers of a product or subcomponent: purls, CPEs, `name@version`, hashes. */
export interface VexComponent {
  ids: string[];
}

export interface VexProduct extends VexComponent {
  /** When not empty, the statement is about these components of the product. */
  subcomponents: VexComponent[];
}

/** Where a statement comes from, for reasons. */
export interface VexSource {
  format: EvidenceFormat;
  id: string;
  author: string | null;
}

export interface VexStatement {
  /** The vulnerability's name and aliases. */
  vulnerability: string[];
  products: VexProduct[];
  status: VexStatus;
  /** The statement's time (its own, else its document's), or null when neither says. */
  timestamp: string | null;
  source: VexSource;
}

/** A VEX document read, or why it cannot be (its format known when it was recognized). */
export type VexReading =
  | { format: EvidenceFormat; source: VexSource; statements: VexStatement[] }
  | { format: EvidenceFormat; error: string };

const OPENVEX_STATUSES: readonly VexStatus[] = [
  "not_affected",
  "affected",
  "fixed",
  "under_investigation",
];

const CYCLONEDX_STATES: Record<string, VexStatus> = {
  not_affected: "not_affected",
  false_positive: "not_affected",
  resolved: "fixed",
  resolved_with_pedigree: "fixed",
  exploitable: "affected",
  in_triage: "under_investigation",
};

const CSAF_STATUSES: Record<string, VexStatus> = {
  known_not_affected: "not_affected",
  fixed: "fixed",
  first_fixed: "fixed",
  known_affected: "affected",
  first_affected: "affected",
  last_affected: "affected",
  under_investigation: "under_investigation",
};

/** The VEX format `payload` declares itself in, or null when it is not a VEX document. */
export function vexFormatOf(payload: unknown): EvidenceFormat | null {
  if (!isObject(payload)) return null;
  const context = own(payload, "@context");
  if (typeof context === "string" && context.startsWith("https://openvex.dev/ns")) {
    return "openvex";
  }
  const document = own(payload, "document");
  if (isObject(document) && own(document, "category") === "csaf_vex") return "csaf-vex";
  if (own(payload, "bomFormat") === "CycloneDX") {
    const vulns = own(payload, "vulnerabilities");
    const analysed = Array.isArray(vulns) &&
      vulns.some((v) => isObject(v) && isObject(own(v, "analysis")));
    if (analysed) return "cyclonedx-vex";
  }
  return null;
}

/** Reads a VEX document of any supported format; null when `payload` is not one. */
export function readVex(payload: unknown): VexReading | null {
  const format = vexFormatOf(payload);
  if (format === null) return null;
  const document = payload as JsonObject;
  if (format === "openvex") return readOpenVex(document);
  if (format === "csaf-vex") return readCsaf(document);
  return readCycloneDx(document);
}

/** One line describing a VEX reading: its source and statements per status. */
export function describeVex(reading: VexReading): string {
  const label = LABELS[reading.format];
  if ("error" in reading) return `${label}: ${reading.error}`;
  const byStatus = new Map<VexStatus, number>();
  for (const s of reading.statements) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
  const statuses = [...byStatus].map(([status, n]) => `${n} ${status}`).join(", ");
  return `${label} ${describeSource(reading.source)}: ` +
    `${count(reading.statements.length, "statement")}${statuses ? ` (${statuses})` : ""}; ` +
    "applied to this project's vulnerability scans";
}

/** A document's id and author, for reasons: `"acme-vex-1" by Acme`. */
export function describeSource(source: VexSource): string {
  const id = source.id.length > 100 ? `${source.id.slice(0, 100)}…` : source.id;
  return `${id}${source.author ? ` by ${source.author.slice(0, 80)}` : ""}`;
}

const LABELS: Partial<Record<EvidenceFormat, string>> = {
  openvex: "OpenVEX document",
  "cyclonedx-vex": "CycloneDX VEX",
  "csaf-vex": "CSAF VEX",
};

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(text).filter((s): s is string => s !== null) : [];
}

/** A date-time string that parses, else null. */
function instant(value: unknown): string | null {
  const s = text(value);
  return s !== null && Number.isFinite(Date.parse(s)) ? s : null;
}

// OpenVEX ----------------------------------------------------------------------------------

function readOpenVex(doc: JsonObject): VexReading {
  const format = "openvex";
  const statements = own(doc, "statements");
  if (!Array.isArray(statements)) return { format, error: "statements is not a list" };
  const source: VexSource = {
    format,
    id: text(own(doc, "@id")) ?? text(own(doc, "id")) ?? "(no @id)",
    author: text(own(doc, "author")),
  };
  const docTime = instant(own(doc, "timestamp"));
  const read: VexStatement[] = [];
  for (const [i, entry] of statements.entries()) {
    if (!isObject(entry)) return { format, error: `statements[${i}] is not an object` };
    const status = lower(own(entry, "status")) as VexStatus;
    if (!OPENVEX_STATUSES.includes(status)) {
      return { format, error: `statements[${i}].status is not an OpenVEX status` };
    }
    const vulnerability = openVexVulnerability(own(entry, "vulnerability"));
    if (vulnerability.length === 0) {
      return { format, error: `statements[${i}] names no vulnerability` };
    }
    // v0.0.1 statements list `products` as strings and `subcomponents` beside them.
    const legacySubs = strings(own(entry, "subcomponents")).map((id) => ({ ids: [id] }));
    const products = (Array.isArray(own(entry, "products")) ? own(entry, "products") as [] : [])
      .map((p: unknown) => openVexProduct(p, legacySubs))
      .filter((p): p is VexProduct => p !== null);
    read.push({
      vulnerability,
      products,
      status,
      timestamp: instant(own(entry, "timestamp")) ?? docTime,
      source,
    });
  }
  return { format, source, statements: read };
}

function openVexVulnerability(value: unknown): string[] {
  if (typeof value === "string") return strings([value]);
  if (!isObject(value)) return [];
  return [own(value, "name"), own(value, "@id"), ...asList(own(value, "aliases"))]
    .map(text)
    .filter((s): s is string => s !== null);
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function openVexComponent(value: unknown): VexComponent | null {
  if (typeof value === "string") return text(value) ? { ids: [value.trim()] } : null;
  if (!isObject(value)) return null;
  const ids = [text(own(value, "@id"))];
  for (const field of ["identifiers", "hashes"]) {
    const map = own(value, field);
    if (isObject(map)) ids.push(...Object.values(map).map(text));
  }
  const present = ids.filter((s): s is string => s !== null);
  return present.length > 0 ? { ids: present } : null;
}

function openVexProduct(value: unknown, legacySubs: VexComponent[]): VexProduct | null {
  const component = openVexComponent(value);
  if (component === null) return null;
  const subs = isObject(value) ? asList(own(value, "subcomponents")) : [];
  const subcomponents = subs.map(openVexComponent).filter((c): c is VexComponent => c !== null);
  return { ids: component.ids, subcomponents: subcomponents.length ? subcomponents : legacySubs };
}

// CycloneDX VEX ----------------------------------------------------------------------------

function readCycloneDx(doc: JsonObject): VexReading {
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

// CSAF VEX ---------------------------------------------------------------------------------

function readCsaf(doc: JsonObject): VexReading {
  const format = "csaf-vex";
  const document = own(doc, "document") as JsonObject;
  const tracking = isObject(own(document, "tracking"))
    ? own(document, "tracking") as JsonObject
    : {};
  const publisher = own(document, "publisher");
  const source: VexSource = {
    format,
    id: text(own(tracking, "id")) ?? "(no tracking id)",
    author: isObject(publisher) ? text(own(publisher, "name")) : null,
  };
  const timestamp = instant(own(tracking, "current_release_date")) ??
    instant(own(tracking, "initial_release_date"));
  const tree = own(doc, "product_tree");
  if (!isObject(tree)) return { format, error: "product_tree is not an object" };
  const products = csafProducts(tree);
  const statements: VexStatement[] = [];
  for (const [i, vuln] of asList(own(doc, "vulnerabilities")).entries()) {
    if (!isObject(vuln)) return { format, error: `vulnerabilities[${i}] is not an object` };
    const vulnerability = [
      text(own(vuln, "cve")),
      ...asList(own(vuln, "ids")).map((id) => isObject(id) ? text(own(id, "text")) : null),
    ].filter((s): s is string => s !== null);
    if (vulnerability.length === 0) {
      return { format, error: `vulnerabilities[${i}] has no cve or ids` };
    }
    const productStatus = own(vuln, "product_status");
    if (!isObject(productStatus)) continue;
    for (const [field, status] of Object.entries(CSAF_STATUSES)) {
      const listed = strings(own(productStatus, field))
        .map((id) => products.get(id))
        .filter((p): p is VexProduct => p !== undefined);
      if (listed.length === 0) continue;
      statements.push({ vulnerability, products: listed, status, timestamp, source });
    }
  }
  return { format, source, statements };
}

/** product_id → product: its purl and CPE; a relationship's product names its component. */
function csafProducts(tree: JsonObject): Map<string, VexProduct> {
  const helpers = new Map<string, string[]>();
  const addProduct = (product: unknown) => {
    if (!isObject(product)) return;
    const id = text(own(product, "product_id"));
    const helper = own(product, "product_identification_helper");
    if (!id) return;
    helpers.set(
      id,
      isObject(helper)
        ? [own(helper, "purl"), own(helper, "cpe")].map(text)
          .filter((s): s is string => s !== null)
        : [],
    );
  };
  const walk = (branches: unknown[], depth: number) => {
    if (depth > 32) return;
    for (const branch of branches) {
      if (!isObject(branch)) continue;
      addProduct(own(branch, "product"));
      walk(asList(own(branch, "branches")), depth + 1);
    }
  };
  walk(asList(own(tree, "branches")), 0);
  for (const product of asList(own(tree, "full_product_names"))) addProduct(product);
  const products = new Map<string, VexProduct>();
  for (const [id, ids] of helpers) products.set(id, { ids, subcomponents: [] });
  for (const rel of asList(own(tree, "relationships"))) {
    if (!isObject(rel)) continue;
    const full = own(rel, "full_product_name");
    const id = isObject(full) ? text(own(full, "product_id")) : null;
    const component = helpers.get(text(own(rel, "product_reference")) ?? "");
    const parent = helpers.get(text(own(rel, "relates_to_product_reference")) ?? "");
    if (!id || !component || !parent) continue;
    products.set(id, { ids: parent, subcomponents: [{ ids: component }] });
  }
  return products;
}
