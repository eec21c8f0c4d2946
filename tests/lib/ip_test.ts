import assert from "node:assert/strict";
import { isInRanges, parseIp, parseIpRange } from "../../src/lib/ip.ts";

Deno.test("[lib] parseIp() reads IPv4, IPv6 and IPv4-mapped addresses", async (t) => {
  const rows = [
    { text: "192.0.2.1", expected: { version: 4, value: 0xc0000201n } },
    { text: "::1", expected: { version: 6, value: 1n } },
    { text: "[::1]", expected: { version: 6, value: 1n } },
    { text: "2001:db8::2:1", expected: { version: 6, value: 0x20010db8000000000000000000020001n } },
    { text: "::ffff:192.0.2.1", expected: { version: 4, value: 0xc0000201n } },
    {
      text: "1:2:3:4:5:6:7:8",
      expected: { version: 6, value: 0x00010002000300040005000600070008n },
    },
    { text: "256.0.0.1", expected: null },
    { text: "01.2.3.4", expected: null },
    { text: "1:2:3:4:5:6:7", expected: null },
    { text: "1::2::3", expected: null },
    { text: "unknown", expected: null },
    { text: "_hidden", expected: null },
    { text: "", expected: null },
  ] as const;
  for (const row of rows) {
    await t.step(row.text || "(empty)", () => assert.deepEqual(parseIp(row.text), row.expected));
  }
});

Deno.test("[lib] parseIpRange() and isInRanges() match CIDR ranges", async (t) => {
  const ranges = ["10.0.0.0/8", "192.0.2.7", "fd00::/8"].map(parseIpRange);
  const rows = [
    { address: "10.1.2.3", inside: true },
    { address: "11.0.0.1", inside: false },
    { address: "192.0.2.7", inside: true },
    { address: "192.0.2.8", inside: false },
    { address: "::ffff:10.9.9.9", inside: true },
    { address: "fd12::1", inside: true },
    { address: "fe80::1", inside: false },
    { address: "not an address", inside: false },
  ];
  for (const row of rows) {
    await t.step(row.address, () => assert.equal(isInRanges(row.address, ranges), row.inside));
  }
  await t.step("refuses what is not a range", () => {
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/8/1", "example.com", "10.0.0.0/x"]) {
      assert.throws(() => parseIpRange(bad), TypeError, bad);
    }
  });
});
