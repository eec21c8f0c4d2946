/** CSAF VEX (`product_tree` with `vulnerabilities[].product_status`) read into VEX statements. */
import { isObject, type JsonObject, own } from "../_read.ts";
import type { VexProduct, VexReading, VexSource, VexStatement, VexStatus } from "../vex.ts";
import { asList, instant, strings, text } from "./_values.ts";

const CSAF_STATUSES: Record<string, VexStatus> = {
  known_not_affected: "not_affected",
  fixed: "fixed",
  first_fixed: "fixed",
  known_affected: "affected",
  first_affected: "affected",
  last_affected: "affected",
  under_investigation: "under_investigation",
};

export function readCsaf(doc: JsonObject): VexReading {
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
