/**
 * Growth curves: reads a user expects to cost the same whatever the history, measured as the
 * instance grows. At 1, 100 and 10,000 projects (public, published, in organizations of ten,
 * built directly through the store in an in-memory KV for speed), the in-process app answers
 * public search (a query matching one project, and, from 100 projects, one matching every
 * project: 20 results), an organization's trust center and `GET /me` of a member of 100
 * organizations, beside a baseline (one project read) that shows how much the store itself
 * slows as it grows; at 10 and 2,000 answers, the first page of an organization's answers, a
 * search whose words every answer has (all match: it reads them all), and one that a rare word
 * narrows to one answer through the word index. Each curve gives the median CPU time per request and the KV entries one
 * request reads at each scale, and their ratios from the smallest scale to the largest (target:
 * flat within 1.5×; the verdict goes by the entries read, which other load on a shared machine
 * does not move), and `/me` with 1 and with 100 memberships beside it. Measured in rounds over every probe in the same run; nothing is
 * asserted. BENCH_GROWTH_PROJECTS, BENCH_GROWTH_ANSWERS (comma-separated scales),
 * BENCH_GROWTH_ROUNDS and BENCH_GROWTH_REPEATS narrow or widen it.
 */
import { createTestApp, type TestApp } from "../support/app.ts";
import { countKvReads, type KvReadCounter } from "../support/kv_reads.ts";
import { cpuUsage } from "node:process";
import { median } from "./_harness.ts";
import { createProject } from "../../src/store/projects.ts";
import { addMember, createOrganization } from "../../src/store/organizations.ts";
import { addToSearchIndex } from "../../src/store/search_index.ts";
import { addAnswer } from "../../src/store/answers.ts";
import { latestPublicationKey, publicationKey } from "../../src/store/keys.ts";
import type { Publication } from "../../src/domain/publication.ts";

const PROJECT_SCALES = (Deno.env.get("BENCH_GROWTH_PROJECTS") ?? "1,100,10000").split(",")
  .map(Number);
const ANSWER_SCALES = (Deno.env.get("BENCH_GROWTH_ANSWERS") ?? "10,2000").split(",").filter(Boolean)
  .map(Number);
const MEMBERSHIPS = 100;
/** Rounds over every probe, and requests per probe in each round. */
const ROUNDS = Number(Deno.env.get("BENCH_GROWTH_ROUNDS") ?? 5);
const REPEATS = Number(Deno.env.get("BENCH_GROWTH_REPEATS") ?? 6);
/** Most profiles one search answers. */
const MAX_RESULTS = 20;
const TARGET = 1.5;

async function ok(res: Response) {
  const body = await res.json();
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

const counters = new WeakMap<TestApp, KvReadCounter>();

/**
 * One request's CPU time in milliseconds (the process's user and system time, every thread,
 * the KV's included; the body read whole) and the KV entries it read. CPU time moves less than
 * wall time when other work shares the machine; the entries read do not move at all.
 */
async function once(
  t: TestApp,
  path: string,
  token?: string,
): Promise<{ cpu: number; reads: number }> {
  const counter = counters.get(t) ?? countKvReads(t.kv);
  counters.set(t, counter);
  counter.entries = 0;
  counter.on = true;
  const before = cpuUsage();
  try {
    const res = await t.call("GET", path, { token });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    await res.arrayBuffer();
  } finally {
    counter.on = false;
  }
  const used = cpuUsage(before);
  return { cpu: (used.user + used.system) / 1000, reads: counter.entries };
}

/** The measured vendor: "Acme", one public project published through the real flow. */
async function vendor(t: TestApp) {
  const token = await t.tokenFor("growth-owner");
  const boot = await ok(
    await t.call("POST", "/onboarding/bootstrap", {
      token,
      json: {
        workspaceName: "Acme",
        projectName: "Acme Cloud",
        projectSlug: "acme-cloud",
        projectVisibility: "public",
      },
    }),
  );
  await ok(await t.call("POST", `/projects/${boot.project.id}/publish`, { token }));
  const latest = (await t.kv.get<number>(latestPublicationKey(boot.project.id))).value!;
  const publication = (await t.kv.get<Publication>(publicationKey(boot.project.id, latest)))
    .value!;
  return { token, organization: boot.organization, project: boot.project, publication };
}

/** `count` more public projects, published (a copy of `publication`), ten per organization. */
async function fill(t: TestApp, count: number, ownerUserId: string, publication: Publication) {
  const now = t.clock.now();
  let organizationId = "";
  for (let i = 0; i < count; i++) {
    if (i % 10 === 0) {
      const name = `Filler ${String(i / 10).padStart(4, "0")}`;
      organizationId = (await createOrganization(t.kv, { name, ownerUserId }, now)).id;
    }
    const project = await createProject(t.kv, {
      organizationId,
      name: `Service ${String(i).padStart(5, "0")}`,
      visibility: "public",
    }, { now, controls: [] });
    const op = t.kv.atomic()
      .set(publicationKey(project.id, 1), { ...publication, projectId: project.id, version: 1 })
      .set(latestPublicationKey(project.id), 1);
    await addToSearchIndex(t.kv, op, project);
    if (!(await op.commit()).ok) throw new Error("filler commit failed");
  }
}

/** A member of `count` organizations (the vendor's among them), with a token. */
async function member(t: TestApp, vendorOrganizationId: string, count: number) {
  const sub = `growth-member-${count}`;
  const token = await t.tokenFor(sub);
  const { user } = await ok(await t.call("GET", "/me", { token }));
  const now = t.clock.now();
  await addMember(
    t.kv,
    { organizationId: vendorOrganizationId, userId: user.id, role: "member" },
    now,
  );
  for (let i = 1; i < count; i++) {
    await createOrganization(t.kv, { name: `Club ${sub} ${i}`, ownerUserId: user.id }, now);
  }
  return token;
}

/** A request to time: a label, the scale it was built at, the app, the path and a token. */
interface Probe {
  label: string;
  scale: number;
  t: TestApp;
  path: string;
  token?: string;
}

async function projectProbes(t: TestApp, projects: number): Promise<Probe[]> {
  const v = await vendor(t);
  const { user: owner } = await ok(await t.call("GET", "/me", { token: v.token }));
  await fill(t, projects - 1, owner.id, v.publication);
  const one = await member(t, v.organization.id, 1);
  const many = await member(t, v.organization.id, MEMBERSHIPS);
  const probe = (label: string, path: string, token?: string) => ({
    label,
    scale: projects,
    t,
    path,
    token,
  });
  return [
    // One project read and one membership check: how much the store itself slows as it grows.
    probe("baseline: GET /projects/{id}", `/projects/${v.project.id}`, v.token),
    probe("search, one match", "/public/trust-profiles?query=acme%20cloud"),
    ...(projects > MAX_RESULTS
      ? [probe("search, 20 matches", "/public/trust-profiles?query=service")]
      : []),
    probe("org trust center", `/public/trust/${v.organization.slug}`),
    probe(`GET /me (${MEMBERSHIPS} memberships)`, "/me", many),
    probe("GET /me (1 membership)", "/me", one),
  ];
}

async function answerProbes(t: TestApp, answers: number): Promise<Probe[]> {
  const v = await vendor(t);
  const actor = { userId: "growth", email: null };
  for (let i = 0; i < answers; i++) {
    await addAnswer(t.kv, v.organization.id, {
      request: {
        question: `Do you encrypt data at rest in region ${i}?`,
        answer: `Yes: AES-256 in region ${i}, keys in a managed KMS, rotated yearly.`,
        category: "Data protection",
        visibility: "public",
      },
      actor,
      now: t.clock.now(),
    });
  }
  const path = `/public/trust/${v.organization.slug}/answers`;
  return [
    { label: "answers, a page of 10", scale: answers, t, path: `${path}?limit=10` },
    { label: "answers, a search", scale: answers, t, path: `${path}?q=encrypt%20region` },
    {
      label: "answers, a search for one",
      scale: answers,
      t,
      path: `${path}?q=encrypt%20region%20${answers - 1}`,
    },
  ];
}

/**
 * Every probe's median CPU time: warmed up, then measured in rounds that visit every probe
 * in turn, so load that drifts during the run weighs on every scale alike.
 */
async function measureAll(
  probes: Probe[],
): Promise<Map<Probe, { cpu: number; reads: number }>> {
  const samples = new Map<Probe, number[]>(probes.map((p) => [p, []]));
  const reads = new Map<Probe, number>();
  for (const p of probes) {
    for (let i = 0; i < 3; i++) reads.set(p, (await once(p.t, p.path, p.token)).reads);
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts at another probe, so no scale is always measured first.
    const start = Math.floor(round * probes.length / ROUNDS);
    for (const p of [...probes.slice(start), ...probes.slice(0, start)]) {
      for (let i = 0; i < REPEATS; i++) {
        samples.get(p)!.push((await once(p.t, p.path, p.token)).cpu);
      }
    }
  }
  return new Map(
    [...samples].map(([p, times]) => [p, { cpu: median(times), reads: reads.get(p)! }]),
  );
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}×`;

/**
 * A curve: CPU per request at each scale and the entries read, with both ratios from the
 * smallest scale to the largest. The verdict goes by the entries read, which no other load on
 * the machine moves; the CPU ratio says what that costs here, noise included.
 */
function curve(label: string, points: Array<[number, { cpu: number; reads: number }]>): string {
  const first = points[0][1];
  const last = points.at(-1)![1];
  const flat = last.reads / first.reads <= TARGET ? "flat" : "GROWS";
  const steps = points.map(([n, v]) => `${n}: ${ms(v.cpu)}`).join(", ");
  const reads = points.map(([, v]) => v.reads).join(" → ");
  return `${label} ${steps}; KV entries read ${reads} (${flat}: reads ${
    ratio(first.reads, last.reads)
  }, CPU ${ratio(first.cpu, last.cpu)})`;
}

export async function benchGrowth(): Promise<{ line: string }> {
  const apps: TestApp[] = [];
  try {
    const probes: Probe[] = [];
    for (const n of PROJECT_SCALES) {
      const t = await createTestApp();
      apps.push(t);
      probes.push(...await projectProbes(t, n));
    }
    for (const n of ANSWER_SCALES) {
      const t = await createTestApp();
      apps.push(t);
      probes.push(...await answerProbes(t, n));
    }
    const times = await measureAll(probes);
    const labels = [...new Set(probes.map((p) => p.label))];
    const lines = [
      `growth, CPU per request and KV entries read (target ≤ ${TARGET}× from the smallest scale to the largest):`,
    ];
    for (const label of labels) {
      const points = probes.filter((p) => p.label === label)
        .map((p) => [p.scale, times.get(p)!] as [number, { cpu: number; reads: number }]);
      lines.push(`  ${curve(`${label}:`, points)}`);
    }
    const meOne = median(
      probes.filter((p) => p.label.startsWith("GET /me (1 ")).map((p) => times.get(p)!.cpu),
    );
    const meMany = median(
      probes.filter((p) => p.label.startsWith(`GET /me (${MEMBERSHIPS} `)).map((p) =>
        times.get(p)!.cpu
      ),
    );
    lines.push(
      `  GET /me, 1 → ${MEMBERSHIPS} memberships: ${ms(meOne)} → ${ms(meMany)} (${
        ratio(meOne, meMany)
      })`,
    );
    return { line: lines.join("\n") };
  } finally {
    for (const t of apps) await t[Symbol.asyncDispose]();
  }
}

if (import.meta.main) console.log((await benchGrowth()).line);
