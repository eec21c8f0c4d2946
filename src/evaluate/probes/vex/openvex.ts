/** OpenVEX v0.0.1 and v0.2.0 documents read into VEX statements. */
import { isObject, type JsonObject, lower, own } from "../_read.ts";
import type {
  VexComponent,
  VexProduct,
  VexReading,
  VexSource,
  VexStatement,
  VexStatus,
} from "../vex.ts";
import { asList, instant, strings, text } from "./_values.ts";

const OPENVEX_STATUSES: readonly VexStatus[] = [
  "not_affected",
  "affected",
  "fixed",
  "under_investigation",
];

export function readOpenVex(doc: JsonObject): VexReading {
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
