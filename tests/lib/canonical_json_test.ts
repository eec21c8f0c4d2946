import assert from "node:assert/strict";
import { canonicalJson } from "../../src/lib/canonical_json.ts";
import { sha256Hex } from "../../src/lib/hash.ts";

Deno.test("[lib] canonicalJson() follows RFC 8785", async (t) => {
  await t.step("writes the RFC 8785 §3.2.2 example", () => {
    const parsed = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        '"literals": [null, true, false]}',
    );
    assert.equal(
      canonicalJson(parsed),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  await t.step("sorts keys by UTF-16 code units (RFC 8785 §3.2.3)", () => {
    const parsed = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet",' +
        '"1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",' +
        '"\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    // U+1F600 (surrogates D83D DE00) sorts before U+FB33 by code units, after it by code
    // points; "1" sorts after "\r" although JS objects list integer-like keys first.
    assert.equal(
      canonicalJson(parsed),
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\u{1f600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet"}',
    );
  });

  await t.step("sorts nested object keys and keeps array order", () => {
    assert.equal(
      canonicalJson({ b: [{ z: 1, a: 2 }, 3], a: { y: null, x: "" }, "": true }),
      '{"":true,"a":{"x":"","y":null},"b":[{"a":2,"z":1},3]}',
    );
  });

  await t.step("writes numbers as ECMAScript does", () => {
    const table: { name: string; input: number; expected: string }[] = [
      { name: "zero", input: 0, expected: "0" },
      { name: "negative zero", input: -0, expected: "0" },
      { name: "1e21 switches to exponent form", input: 1e21, expected: "1e+21" },
      { name: "1e20 stays integral", input: 1e20, expected: "100000000000000000000" },
      { name: "1e-7 switches to exponent form", input: 1e-7, expected: "1e-7" },
      { name: "0.000001 stays decimal", input: 0.000001, expected: "0.000001" },
      { name: "shortest round trip", input: 333333333.33333329, expected: "333333333.3333333" },
      { name: "no trailing zero", input: 4.50, expected: "4.5" },
      { name: "2e-3", input: 2e-3, expected: "0.002" },
      { name: "negative", input: -1.5, expected: "-1.5" },
      { name: "max safe integer", input: 9007199254740991, expected: "9007199254740991" },
      { name: "smallest subnormal", input: 5e-324, expected: "5e-324" },
      {
        name: "largest double",
        input: 1.7976931348623157e308,
        expected: "1.7976931348623157e+308",
      },
      // Vectors from RFC 8785 Appendix B.
      { name: "0x4340000000000001", input: 9007199254740994, expected: "9007199254740994" },
      { name: "0x44b52d02c7e14af6", input: 1e23, expected: "1e+23" },
      { name: "0x3eb0c6f7a0b5ed8d", input: 0.000001, expected: "0.000001" },
      { name: "0x3eb0c6f7a0b5ed8c", input: 9.999999999999997e-7, expected: "9.999999999999997e-7" },
      {
        name: "0x444b1ae4d6e2ef4f",
        input: 999999999999999700000,
        expected: "999999999999999700000",
      },
    ];
    for (const { name, input, expected } of table) {
      assert.equal(canonicalJson(input), expected, name);
      assert.equal(canonicalJson([input]), `[${expected}]`, name);
    }
  });

  await t.step("writes strings as JSON.stringify does", () => {
    assert.equal(canonicalJson("a\u2028b\u0000\t"), '"a\u2028b\\u0000\\t"');
    assert.equal(canonicalJson("😀 é"), '"😀 é"');
  });

  await t.step("emits no whitespace and gives one form for equal data", async () => {
    const a = canonicalJson({ x: [1, 2, { b: 1, a: 0 }], y: "s" });
    const b = canonicalJson(
      JSON.parse('{ "y" : "s",\n "x" : [ 1 , 2.0 , { "a" : 0 , "b" : 1e0 } ] }'),
    );
    assert.equal(a, '{"x":[1,2,{"a":0,"b":1}],"y":"s"}');
    assert.equal(await sha256Hex(a), await sha256Hex(b));
  });

  await t.step("accepts objects without a prototype", () => {
    const bare = Object.assign(Object.create(null), { b: 1, a: 2 });
    assert.equal(canonicalJson(bare), '{"a":2,"b":1}');
  });
});

Deno.test("[lib] canonicalJson() rejects what is not JSON data", async (t) => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const table: { name: string; input: unknown; message: RegExp }[] = [
    { name: "NaN", input: { a: NaN }, message: /the number NaN at "\/a"/ },
    { name: "Infinity", input: [1, Infinity], message: /the number Infinity at "\/1"/ },
    { name: "-Infinity", input: -Infinity, message: /the number -Infinity at ""/ },
    {
      name: "undefined property",
      input: { a: { b: undefined } },
      message: /undefined at "\/a\/b"/,
    },
    { name: "undefined top level", input: undefined, message: /undefined/ },
    { name: "array hole", input: [1, , 3], message: /undefined at "\/1"/ },
    { name: "function", input: { f() {} }, message: /a function at "\/f"/ },
    { name: "bigint", input: { n: 1n }, message: /a bigint at "\/n"/ },
    { name: "symbol", input: [Symbol("s")], message: /a symbol at "\/0"/ },
    { name: "Date", input: { at: new Date(0) }, message: /a Date at "\/at"/ },
    { name: "Map", input: new Map(), message: /a Map/ },
    { name: "Uint8Array", input: [new Uint8Array(1)], message: /a Uint8Array/ },
    { name: "lone surrogate value", input: { s: "\ud800" }, message: /lone surrogate at "\/s"/ },
    { name: "lone surrogate key", input: { "\udc00": 1 }, message: /lone surrogate/ },
    { name: "cycle", input: cyclic, message: /cyclic value at "\/self"/ },
    { name: "escaped path", input: { "a/b": { "c~d": NaN } }, message: /at "\/a~1b\/c~0d"/ },
  ];
  for (const { name, input, message } of table) {
    await t.step(`rejects ${name}`, () => {
      assert.throws(() => canonicalJson(input), (error) => {
        assert.ok(error instanceof TypeError, name);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  await t.step("limits nesting to maxDepth, 64 by default", () => {
    const nest = (depth: number): unknown => {
      let value: unknown = [];
      for (let i = 1; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
      return value;
    };
    assert.doesNotThrow(() => canonicalJson(nest(64)));
    assert.throws(() => canonicalJson(nest(65)), /deeper than 64/);
    assert.doesNotThrow(() => canonicalJson(nest(3), { maxDepth: 3 }));
    assert.throws(() => canonicalJson(nest(4), { maxDepth: 3 }), /deeper than 3/);
    assert.equal(canonicalJson(1, { maxDepth: 0 }), "1");
  });

  await t.step("rejects a 100 000-deep array without overflowing the stack", () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.throws(() => canonicalJson(deep), (error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^Cannot canonicalize nesting deeper than 64 at "(\/0){64}"$/);
      return true;
    });
    // Without a limit the same input still serializes, proving the walk is iterative.
    assert.equal(canonicalJson(deep, { maxDepth: Infinity }).length, 200_002);
  });
});
