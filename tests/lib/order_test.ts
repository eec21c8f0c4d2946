import assert from "node:assert/strict";
import { compareCodePoints } from "../../src/lib/order.ts";

Deno.test("[lib] compareCodePoints() orders by Unicode code point, whatever the locale", () => {
  const words = ["b", "B", "a_b", "a-b", "a.b", "ab", "é", "e", "\uffff", "😀", "", "a"];
  const sorted = [...words].sort(compareCodePoints);
  assert.deepEqual(sorted, [
    "",
    "B",
    "a",
    "a-b",
    "a.b",
    "a_b",
    "ab",
    "b",
    "e",
    "é",
    "\uffff",
    "😀",
  ]);
  // UTF-16 order alone puts U+1F600 (a surrogate pair) before U+FFFF.
  assert.ok(compareCodePoints("😀", "\uffff") > 0);
  assert.equal(compareCodePoints("same", "same"), 0);
  assert.ok(compareCodePoints("ab", "abc") < 0);
  // The same as comparing UTF-8 bytes.
  const enc = new TextEncoder();
  for (const a of words) {
    for (const b of words) {
      const [x, y] = [enc.encode(a), enc.encode(b)];
      let byBytes = 0;
      for (let i = 0; i < Math.min(x.length, y.length) && byBytes === 0; i++) byBytes = x[i] - y[i];
      if (byBytes === 0) byBytes = x.length - y.length;
      assert.equal(Math.sign(compareCodePoints(a, b)), Math.sign(byBytes), `${a} ${b}`);
    }
  }
});
