import assert from "node:assert/strict";
import type { ProjectDomain } from "../../src/domain/publish.ts";
import {
  createDomain,
  deleteDomain,
  getDomainByName,
  getDomainEntry,
  saveVerifiedDomain,
} from "../../src/store/domains.ts";
import { getTombstone, releaseName, rememberDeletedSlug } from "../../src/store/deletions.ts";
import { domainByNameKey, organizationKey, projectKey } from "../../src/store/keys.ts";
import { getNameChange } from "../../src/store/log.ts";
import { NAME_CHANGE_HEADERS } from "../../src/domain/log.ts";

const NAME = "trust.acme.example";
const AT = "2026-01-01T00:00:00.000Z";

function pending(projectId = crypto.randomUUID()): ProjectDomain {
  return {
    id: crypto.randomUUID(),
    projectId,
    domain: NAME,
    verificationStatus: "pending",
    verificationMethod: "dns_txt",
    verificationToken: crypto.randomUUID(),
    verifiedAt: null,
    lastCheckedAt: null,
    createdAt: AT,
    updatedAt: AT,
  };
}

const verified = (domain: ProjectDomain): ProjectDomain => ({
  ...domain,
  verificationStatus: "verified",
  verifiedAt: AT,
});

async function verify(kv: Deno.Kv, domain: ProjectDomain) {
  const entry = await getDomainEntry(kv, domain.id);
  return await saveVerifiedDomain(kv, entry as Deno.KvEntry<ProjectDomain>, verified(domain));
}

Deno.test("[store] domains: claims verified at once leave exactly one owner", async () => {
  await using kv = await Deno.openKv(":memory:");
  const claims = await Promise.all(
    Array.from({ length: 6 }, () => createDomain(kv, pending())),
  );
  const outcomes = await Promise.all(claims.map((claim) => verify(kv, claim)));
  assert.equal(outcomes.filter((o) => o === "saved").length, 1, outcomes.join());
  assert.ok(outcomes.every((o) => o === "saved" || o === "taken"), outcomes.join());
  const owner = await getDomainByName(kv, NAME);
  assert.equal(owner?.id, claims[outcomes.indexOf("saved")].id);
});

Deno.test("[store] domains: removing a claim that lost keeps the owner's name", async () => {
  await using kv = await Deno.openKv(":memory:");
  const [winner, loser] = [await createDomain(kv, pending()), await createDomain(kv, pending())];
  assert.equal(await verify(kv, winner), "saved");
  await deleteDomain(kv, loser);
  assert.equal((await getDomainByName(kv, NAME))?.id, winner.id);
  await deleteDomain(kv, winner);
  assert.equal(await getDomainByName(kv, NAME), null);
});

Deno.test("[store] domains: a name indexed by a pending claim (stored before claims) holds nothing", async () => {
  await using kv = await Deno.openKv(":memory:");
  const old = pending();
  await kv.set(["domains", old.id], old);
  await kv.set(domainByNameKey(NAME), old.id);
  assert.equal(await getDomainByName(kv, NAME), null);
  const claim = await createDomain(kv, pending());
  assert.equal(await verify(kv, claim), "saved");
  assert.equal((await getDomainByName(kv, NAME))?.id, claim.id);
});

Deno.test("[store] domains: a claim made before a deleted project's domain was reserved does not verify until the name is released", async () => {
  await using kv = await Deno.openKv(":memory:");
  const projectId = crypto.randomUUID(), organizationId = crypto.randomUUID();
  await kv.set(projectKey(projectId), { id: projectId, organizationId, slug: "globex" });
  await kv.set(organizationKey(organizationId), { id: organizationId, slug: "globex-co" });
  const early = await createDomain(kv, pending(projectId));
  // The deletion job's tombstone of the verified domain it removed.
  await rememberDeletedSlug(kv, "domain", { slug: NAME, now: new Date(AT), logSize: 3 });
  assert.equal(await verify(kv, early), "reserved");
  assert.equal(await getDomainByName(kv, NAME), null);
  await assert.rejects(
    createDomain(kv, pending()),
    /belonged to a deleted project and is reserved/,
  );
  assert.ok(await releaseName(kv, "domain", NAME, new Date(AT)));
  assert.equal(await verify(kv, early), "saved");
  assert.equal((await getDomainByName(kv, NAME))?.id, early.id);
  assert.equal(await getTombstone(kv, "domain", NAME), null, "the verification took the name");
  // And recorded in the log that the name changed hands (src/store/deletions.ts, stageNameTaken).
  const change = await getNameChange(kv, organizationId, "domain", NAME);
  assert.equal(
    change?.entry,
    `${NAME_CHANGE_HEADERS.domain}\n${NAME}\n3\n${projectId}\nglobex-co\n${organizationId}\n${AT}\n`,
  );
  assert.equal(change?.releasedAt, AT);
});
