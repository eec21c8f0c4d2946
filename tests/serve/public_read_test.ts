import assert from "node:assert/strict";
import { AppError } from "../../src/domain/errors.ts";
import {
  latestControls,
  latestSignals,
  latestTrustJson,
  profileEnvelope,
} from "../../src/serve/bodies.ts";
import { searchTrustProfiles, versionPage } from "../../src/serve/history.ts";
import { orgTrustCenter } from "../../src/serve/org_center.ts";
import {
  publicationByDomain,
  publicProject,
  publicPublication,
  publicVersion,
} from "../../src/serve/public_read.ts";
import { setupGuideOf } from "../../src/serve/setup_guide.ts";
import { createDomain } from "../../src/store/domains.ts";
import { serveWorld } from "./_world.ts";

async function notFoundMessage(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof AppError, "rejected with an AppError");
  assert.equal(error.status, 404);
  return error.message;
}

Deno.test("[serve] public reads resolve slugs, and hide private and unknown ones alike", async (t) => {
  await using world = await serveWorld();

  await t.step("a public published project resolves to its latest publication", async () => {
    assert.equal((await publicProject(world, "acme")).id, world.acme.id);
    const { project, publication } = await publicPublication(world, "acme");
    assert.equal(project.id, world.acme.id);
    assert.equal(publication.version, 1);
    assert.equal(publication.digest, world.published.digest);
  });

  await t.step("private and unknown slugs fail with the same 404", async () => {
    const hidden = await notFoundMessage(publicProject(world, "hidden"));
    const unknown = await notFoundMessage(publicProject(world, "nobody"));
    assert.equal(hidden.replace("hidden", "X"), unknown.replace("nobody", "X"));
    assert.equal(
      await notFoundMessage(publicPublication(world, "hidden")),
      hidden,
    );
  });

  await t.step("a public project without a publication is found but has no profile", async () => {
    assert.equal((await publicProject(world, "draft")).id, world.draft.id);
    assert.match(await notFoundMessage(publicPublication(world, "draft")), /not published/);
  });

  await t.step("a version resolves, a missing one is 404", async () => {
    assert.equal((await publicVersion(world, { slug: "acme", version: 1 })).version, 1);
    assert.match(
      await notFoundMessage(publicVersion(world, { slug: "acme", version: 2 })),
      /Version 2/,
    );
    await notFoundMessage(publicVersion(world, { slug: "hidden", version: 1 }));
  });

  await t.step(
    "a verified domain resolves; pending, unknown and malformed ones do not",
    async () => {
      const at = new Date().toISOString();
      const domain = (name: string, status: "pending" | "verified") => ({
        id: crypto.randomUUID(),
        projectId: world.acme.id,
        domain: name,
        verificationStatus: status,
        verificationMethod: "dns_txt" as const,
        verificationToken: "token",
        verifiedAt: status === "verified" ? at : null,
        lastCheckedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      await createDomain(world.kv, domain("trust.acme.example", "verified"));
      await createDomain(world.kv, domain("pending.acme.example", "pending"));
      const { publication } = await publicationByDomain(world.kv, "Trust.Acme.Example.");
      assert.equal(publication.digest, world.published.digest);
      const messages = await Promise.all(
        ["pending.acme.example", "other.example", "not a domain"].map((name) =>
          notFoundMessage(publicationByDomain(world.kv, name))
        ),
      );
      assert.deepEqual(new Set(messages), new Set(["No verified domain by that name"]));
    },
  );
});

Deno.test("[serve] bodies: trust.json, envelope, controls, signals, versions, trust center", async (t) => {
  await using world = await serveWorld();
  const text = await latestTrustJson(world, "acme");
  const document = JSON.parse(text);

  await t.step("trust.json is the stored bytes; the envelope wraps them", async () => {
    const stored = await world.blobs.get(world.published.artifacts.trustJson.key);
    assert.equal(text, new TextDecoder().decode(stored!));
    assert.deepEqual(JSON.parse(profileEnvelope(text)), { profile: document });
  });

  await t.step("controls are trust.json without schemaVersion, with their own ETag", async () => {
    const { controls, etag } = await latestControls(world, "acme");
    const { schemaVersion: _version, ...expected } = document;
    assert.deepEqual(controls, expected);
    assert.equal(etag, `"${world.published.artifacts.trustJson.digest}.controls"`);
  });

  await t.step("signals are null before any detection; private projects are 404", async () => {
    assert.equal(await latestSignals(world, "acme"), null);
    await notFoundMessage(latestSignals(world, "hidden"));
  });

  await t.step("the version list names each version's digest", async () => {
    const { body } = await versionPage(world, "acme", {});
    assert.deepEqual(body.versions.map((v) => [v.version, v.digest]), [
      [1, world.published.digest],
    ]);
    assert.equal(body.nextCursor, null);
    await notFoundMessage(versionPage(world, "hidden", {}));
  });

  await t.step("search finds public published projects only", async () => {
    const found = await searchTrustProfiles(world, "  ACM ");
    assert.equal(found.query, "ACM");
    assert.deepEqual(found.profiles.map((p) => [p.slug, p.version]), [["acme", 1]]);
    assert.deepEqual((await searchTrustProfiles(world, "hidden")).profiles, []);
  });

  await t.step("the trust center lists public, published projects only", async () => {
    const center = await orgTrustCenter(world.kv, world.orgSlug, {
      config: world.config,
      now: new Date(),
    });
    assert.deepEqual(center.projects.map((p) => p.slug), ["acme"]);
    assert.equal(center.projects[0].hostedSubdomain, "acme");
    await notFoundMessage(
      orgTrustCenter(world.kv, "no-such-org", { config: world.config, now: new Date() }),
    );
  });

  await t.step("the setup guide names the project and a collector placeholder", async () => {
    const guide = await setupGuideOf(world, world.acme);
    assert.match(guide, new RegExp(`Project id: \`${world.acme.id}\``));
    assert.match(guide, /Collector id: `<COLLECTOR_ID>`/);
  });
});
