import assert from "node:assert/strict";
import { isGlobalUnicast, isInRanges, parseIp, parseIpRange } from "../../src/lib/ip.ts";

Deno.test("[lib] parseIp() reads IPv4, IPv6 and IPv4-mapped addresses in their usual notations", async (t) => {
  const rows = [
    { text: "192.0.2.1", expected: "192.0.2.1" },
    { text: "::1", expected: "::1" },
    { text: "[::1]", expected: "::1" },
    { text: "2001:db8::2:1", expected: "2001:db8::2:1" },
    { text: "::ffff:192.0.2.1", expected: "192.0.2.1" },
    { text: "::127.0.0.1", expected: "::7f00:1" },
    { text: "1:2:3:4:5:6:7:8", expected: "1:2:3:4:5:6:7:8" },
    { text: "256.0.0.1", expected: null },
    { text: "01.2.3.4", expected: null },
    { text: "0x7f.0.0.1", expected: null },
    { text: "127.1", expected: null },
    { text: "2130706433", expected: null },
    { text: "::ffff:0x7f.0.0.1", expected: null },
    { text: "fe80::1%eth0", expected: null },
    { text: "1:2:3:4:5:6:7", expected: null },
    { text: "1::2::3", expected: null },
    { text: `${"1:".repeat(40)}1`, expected: null },
    { text: "unknown", expected: null },
    { text: "_hidden", expected: null },
    { text: "", expected: null },
  ] as const;
  for (const row of rows) {
    await t.step(row.text || "(empty)", () => {
      assert.equal(parseIp(row.text)?.toString() ?? null, row.expected);
    });
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
    for (
      const bad of [
        "10.0.0.0/33",
        "::/129",
        "10.0.0.0/8/1",
        "example.com",
        "10.0.0.0/x",
        "1.2.3.4/",
      ]
    ) {
      assert.throws(() => parseIpRange(bad), TypeError, bad);
    }
  });
});

Deno.test("[lib] isGlobalUnicast() accepts only global unicast addresses", async (t) => {
  const rows: Array<[string, boolean]> = [
    ["93.184.215.14", true],
    ["8.8.8.8", true],
    ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", true],
    ["2a00:1450:4001:82b::200e", true],
    ["::ffff:93.184.215.14", true],
    ["64:ff9b::5db8:d70e", true],
    ["127.0.0.1", false],
    ["10.0.0.1", false],
    ["100.64.0.1", false],
    ["169.254.169.254", false],
    ["192.0.0.192", false],
    ["192.0.2.1", false],
    ["198.18.0.1", false],
    ["198.51.100.1", false],
    ["203.0.113.1", false],
    ["224.0.0.1", false],
    ["240.0.0.1", false],
    ["255.255.255.255", false],
    ["0.0.0.0", false],
    ["::", false],
    ["::1", false],
    ["::127.0.0.1", false],
    ["::8.8.8.8", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:0:7f00:1", false],
    ["64:ff9b::7f00:1", false],
    ["64:ff9b:1::808:808", false],
    ["100::1", false],
    ["2001::1", false],
    ["2001:2::1", false],
    ["2001:10::1", false],
    ["2001:db8::1", false],
    ["2002:808:808::1", false],
    ["3fff::1", false],
    ["5f00::1", false],
    ["fc00::1", false],
    ["fd00:ec2::254", false],
    ["fe80::1", false],
    ["fec0::1", false],
    ["ff02::1", false],
    ["4000::1", false],
    ["not an address", false],
  ];
  for (const [address, expected] of rows) {
    await t.step(address, () => assert.equal(isGlobalUnicast(address), expected));
  }
});
