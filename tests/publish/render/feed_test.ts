import assert from "node:assert/strict";
import type { PublishedVersion } from "../../../src/domain/publish.ts";
import { type AtomFeedInput, renderAtomFeed } from "../../../src/publish/render/mod.ts";
import { HOSTILE_CONTROL, HOSTILE_NAME, VERSIONS } from "./_fixtures.ts";
import { assertWellFormedXml } from "./_xml.ts";

const INPUT: AtomFeedInput = {
  project: { slug: "acme", name: "Acme Cloud" },
  feedUrl: "https://trust.example.com/trust/acme/feed.xml",
  pageUrl: "https://trust.example.com/trust/acme",
  versions: VERSIONS,
};

/** Each `<entry>` element's inner XML, in document order. */
function entries(feed: string): string[] {
  return [...feed.matchAll(/<entry>([\s\S]*?)<\/entry>/g)].map((m) => m[1]);
}

function child(xml: string, name: string): string {
  const m = xml.match(new RegExp(`<${name}[^>]*>([\\s\\S]*?)</${name}>`));
  assert.ok(m, `<${name}> in ${xml}`);
  return m[1];
}

/** The feed-level part, before the first entry. */
function head(feed: string): string {
  return feed.slice(0, feed.indexOf("<entry>"));
}

Deno.test("[publish] renderAtomFeed() writes well-formed Atom 1.0", () => {
  const feed = renderAtomFeed(INPUT);
  assert.ok(feed.startsWith('<?xml version="1.0" encoding="utf-8"?>\n'));
  const names = assertWellFormedXml(feed);
  assert.equal(names[0], "feed");
  assert.match(feed, /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
  const top = head(feed);
  assert.equal(child(top, "id"), "tag:trust.example.com,2026-02-12:trust/acme");
  assert.equal(child(top, "title"), "Acme Cloud: trust profile");
  assert.equal(child(top, "updated"), "2026-03-14T09:30:00Z", "the newest publication");
  assert.equal(child(child(top, "author"), "name"), "Acme Cloud", "RFC 4287 requires an author");
  assert.ok(top.includes(`<link rel="self" type="application/atom+xml" href="${INPUT.feedUrl}"/>`));
  assert.ok(top.includes(`<link rel="alternate" type="text/html" href="${INPUT.pageUrl}"/>`));
});

Deno.test("[publish] renderAtomFeed() writes one entry per version, newest first", () => {
  const list = entries(renderAtomFeed(INPUT));
  assert.equal(list.length, 3);
  assert.deepEqual(list.map((e) => child(e, "title")), [
    "Version 3: fail",
    "Version 2: pass",
    "Version 1: pass",
  ]);
  assert.deepEqual(list.map((e) => child(e, "id")), [
    "tag:trust.example.com,2026-03-14:trust/acme/versions/3",
    "tag:trust.example.com,2026-03-13:trust/acme/versions/2",
    "tag:trust.example.com,2026-02-12:trust/acme/versions/1",
  ]);
  assert.deepEqual(list.map((e) => child(e, "updated")), [
    "2026-03-14T09:30:00Z",
    "2026-03-13T09:30:00Z",
    "2026-02-12T09:30:00Z",
  ]);
  assert.ok(
    list[0].includes(
      '<link rel="alternate" type="application/json" href="https://trust.example.com/trust/acme/versions/3/trust.json"/>',
    ),
    list[0],
  );
  assert.equal(
    child(list[0], "content"),
    "Overall state: fail.\nVulnerability scan (evidence.vulnerability_scan): pass → fail\n" +
      `trust.json digest: sha256:${"c".repeat(64)}`,
  );
  assert.match(list[0], /<content type="text">/);
  assert.match(child(list[1], "content"), /^Overall state: pass\.\nNo control changed state\./);
  assert.match(
    child(list[2], "content"),
    /Software bill of materials \(evidence\.sbom\): added as pass/,
  );
});

Deno.test("[publish] renderAtomFeed() keeps ids stable as versions are added", () => {
  const before = renderAtomFeed({ ...INPUT, versions: VERSIONS.slice(1) });
  const after = renderAtomFeed(INPUT);
  assert.equal(child(head(before), "id"), child(head(after), "id"), "feed id");
  assert.deepEqual(entries(before), entries(after).slice(1), "older entries unchanged");
  const limited = renderAtomFeed({ ...INPUT, maxEntries: 1 });
  assert.equal(entries(limited).length, 1);
  assert.equal(child(head(limited), "id"), child(head(after), "id"), "id still from version 1");
});

Deno.test("[publish] renderAtomFeed() escapes vendor text and drops what XML cannot carry", () => {
  const hostile: PublishedVersion[] = [{
    ...VERSIONS[0],
    changes: [{ key: "a&b", name: `${HOSTILE_CONTROL}\u0001\uD800`, from: "pass", to: "fail" }],
  }];
  const feed = renderAtomFeed({
    ...INPUT,
    project: { slug: "acme", name: HOSTILE_NAME },
    pageUrl: "https://trust.example.com/trust/acme?x=1&y=2",
    versions: hostile,
  });
  assertWellFormedXml(feed);
  assert.ok(!feed.includes("<img") && !feed.includes("<script"), "no raw vendor markup");
  assert.ok(!feed.includes("\u0001"), "control characters replaced");
  assert.ok(feed.isWellFormed(), "lone surrogates replaced");
  assert.equal(child(head(feed), "title"), "&lt;img src=x onerror=alert(1)&gt;: trust profile");
  assert.match(feed, /a&amp;b/);
  assert.match(feed, /href="https:\/\/trust\.example\.com\/trust\/acme\?x=1&amp;y=2"/);
});

Deno.test("[publish] renderAtomFeed() uses versionUrl and refuses an empty history", () => {
  const feed = renderAtomFeed({ ...INPUT, versionUrl: (n) => `https://cdn.example/v${n}.json` });
  assert.match(feed, /href="https:\/\/cdn\.example\/v3\.json"/);
  assert.throws(() => renderAtomFeed({ ...INPUT, versions: [] }), RangeError);
});
