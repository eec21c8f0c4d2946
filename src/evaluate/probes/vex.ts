/**
 * VEX documents read into one statement shape: OpenVEX (v0.0.1 and v0.2.0), CycloneDX VEX
 * (`vulnerabilities[].analysis.state`) and CSAF VEX (`product_tree` with
 * `vulnerabilities[].product_status`). Each format's reader is in vex/; matching statements to
 * scan findings is in vex_match.ts.
 */
import { count, isObject, type JsonObject, own } from "./_read.ts";
import { readCsaf } from "./vex/csaf.ts";
import { readCycloneDx } from "./vex/cyclonedx.ts";
import { readOpenVex } from "./vex/openvex.ts";
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
