/**
 * A real server with one public, published project ("acme", with a
 * heartbeat, evidence and signals) and one private, published project
 * ("hidden"), set up over HTTP the way an operator and a collector would.
 * The queue is off, so no automatic re-publish changes the version mid-test.
 */
import { startTestServer, type TestServer } from "../support/server.ts";

export interface PublishedFixture {
  server: TestServer;
  publicSlug: string;
  privateSlug: string;
  [Symbol.asyncDispose](): Promise<void>;
}

async function call(server: TestServer, path: string, token: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

async function bootstrap(server: TestServer, sub: string, slug: string, visibility: string) {
  const token = await server.tokenFor(sub);
  const { project } = await call(server, "/onboarding/bootstrap", token, {
    workspaceName: `${sub} workspace`,
    projectName: `${sub} project`,
    projectSlug: slug,
    projectVisibility: visibility,
  });
  return { token, projectId: project.id as string };
}

/** Starts the server and publishes both projects. */
export async function startPublishedServer(): Promise<PublishedFixture> {
  const server = await startTestServer({ worker: false });
  try {
    const acme = await bootstrap(server, "alice", "acme", "public");
    const created = await call(server, `/projects/${acme.projectId}/collectors`, acme.token, {
      name: "ci",
    });
    const secret = created.secret.value as string;
    await call(server, `/collectors/${created.collector.id}/heartbeat`, secret, {
      sourceRef: "ci",
    });
    await call(server, "/ingest/evidence", secret, {
      projectId: acme.projectId,
      evidenceType: "sbom",
      sourceType: "github_actions",
      sourceRef: "acme/api@refs/heads/main",
      observedAt: new Date(Date.now() - 60_000).toISOString(),
      payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [{ name: "left-pad" }] },
    });
    await call(server, "/ingest/signals", secret, {
      projectId: acme.projectId,
      detection: {
        detectedAt: new Date(Date.now() - 30_000).toISOString(),
        commitSha: "0123456789abcdef0123456789abcdef01234567",
        ciCd: { detected: true, tools: ["github-actions"] },
        monitoring: { detected: false },
        authProvider: { detected: true, providers: ["auth0"] },
        cloudProvider: { detected: true, providers: ["aws"] },
        securityContact: { detected: true, email: "security@acme.example" },
      },
    });
    await call(server, `/projects/${acme.projectId}/publish`, acme.token);

    const hidden = await bootstrap(server, "bob", "hidden", "private");
    await call(server, `/projects/${hidden.projectId}/publish`, hidden.token);
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    server,
    publicSlug: "acme",
    privateSlug: "hidden",
    [Symbol.asyncDispose]: () => server.close(),
  };
}
