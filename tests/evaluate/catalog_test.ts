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
