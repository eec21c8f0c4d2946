import assert from "node:assert/strict";
import { catalogControls, DEFAULT_CATALOG, inCatalogOrder } from "../../src/evaluate/catalog.ts";

Deno.test("[evaluate] inCatalogOrder() puts the default catalog first, then custom controls by creation", () => {
  const now = new Date("2026-11-01T12:00:00Z");
  const defaults = catalogControls(now);
  assert.deepEqual(defaults.map((c) => c.key), DEFAULT_CATALOG.map((e) => e.key));
  const custom = (key: string, createdAt: string) => ({ ...defaults[0], key, createdAt });
  const shuffled = [
    custom("custom.b", "2026-11-02T00:00:00Z"),
    ...defaults.toReversed(),
    custom("custom.a", "2026-11-03T00:00:00Z"),
    custom("custom.c", "2026-11-02T00:00:00Z"),
  ];
  assert.deepEqual(inCatalogOrder(shuffled).map((c) => c.key), [
    ...DEFAULT_CATALOG.map((e) => e.key),
    "custom.b",
    "custom.c",
    "custom.a",
  ]);
});

Deno.test("[evaluate] inCatalogOrder() breaks creation ties by key in code-point order, not by locale", () => {
  const now = new Date("2026-11-01T12:00:00Z");
  const [base] = catalogControls(now);
  const at = "2026-11-02T00:00:00.000Z";
  // ICU collation puts "_" before "-" before "." and ignores case first; code points do not.
  const keys = ["custom.a_b", "custom.ab", "custom.a.b", "custom.a-b", "custom.a9", "custom.a10"];
  const ordered = inCatalogOrder(keys.map((key) => ({ ...base, key, createdAt: at })));
  assert.deepEqual(ordered.map((c) => c.key), [
    "custom.a-b",
    "custom.a.b",
    "custom.a10",
    "custom.a9",
    "custom.a_b",
    "custom.ab",
  ]);
});
