/**
 * The Sigstore signer identities a project expects: which certificate issuer and subject
 * may sign its build provenance and other signed evidence; and its provenance subject
 * rule: whether provenance must be about an artifact the project reports.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import {
  ProvenanceSubjects,
  ProvenanceSubjectsResponse,
  SigstoreIdentitiesRequest,
  SigstoreIdentitiesResponse,
} from "../../domain/sigstore.ts";
import {
  getProvenanceSubjects,
  getSigstoreIdentities,
  setProvenanceSubjects,
  setSigstoreIdentities,
} from "../../store/sigstore_identities.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const sigstoreIdentityRoutes = createRouter();

const Params = z.object({ id: uuidParam("id") });
const tags = ["Projects"];

sigstoreIdentityRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/sigstore-identities",
    operationId: "getSigstoreIdentities",
    tags,
    summary: "The Sigstore signer identities the project expects",
    description: "Signed evidence passes only when its Sigstore certificate names one of " +
      "these identities (issuer exactly; subject exactly or with `*` wildcards).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: Params },
    responses: {
      200: json(SigstoreIdentitiesResponse, "The expected identities (empty: none yet)"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await requireProjectAccess(c, id);
    const identities = await getSigstoreIdentities(c.var.services.kv, id);
    return c.json({ identities }, 200);
  },
);

sigstoreIdentityRoutes.openapi(
  createRoute({
    method: "put",
    path: "/projects/{id}/sigstore-identities",
    operationId: "setSigstoreIdentities",
    tags,
    summary: "Replace the Sigstore signer identities the project expects",
    description: "At most 20. Each is a certificate `issuer` (the OIDC issuer Fulcio " +
      "recorded, e.g. `https://token.actions.githubusercontent.com`) and `subject` (the " +
      "certificate's SAN, e.g. a workflow `https://github.com/acme/app/.github/workflows/" +
      "release.yml@refs/heads/main`; `*` matches any run of characters except `/` and `@`). " +
      "The project's " +
      "controls are re-evaluated with them.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: Params, body: jsonBody(SigstoreIdentitiesRequest) },
    responses: {
      200: json(SigstoreIdentitiesResponse, "The identities now expected"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await requireProjectAccess(c, id);
    const { kv, notifyActivity } = c.var.services;
    const identities = await setSigstoreIdentities(kv, id, c.req.valid("json").identities);
    await notifyActivity(id);
    return c.json({ identities }, 200);
  },
);

sigstoreIdentityRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/provenance-subjects",
    operationId: "getProvenanceSubjects",
    tags,
    summary: "Whether build provenance must be about an artifact the project reports",
    description: "The project's provenance subject rule. By default (`requireMatch` false) " +
      "a verified provenance passes whatever artifact it describes.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: Params },
    responses: {
      200: json(ProvenanceSubjectsResponse, "The rule (the default when none was set)"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await requireProjectAccess(c, id);
    return c.json(await getProvenanceSubjects(c.var.services.kv, id), 200);
  },
);

sigstoreIdentityRoutes.openapi(
  createRoute({
    method: "put",
    path: "/projects/{id}/provenance-subjects",
    operationId: "setProvenanceSubjects",
    tags,
    summary: "Replace the project's provenance subject rule",
    description: "With `requireMatch`, build provenance passes only when one of its " +
      "subjects is an artifact the project reports: a subject digest equal to a digest in " +
      "the latest evidence of a source in `digestsFrom` (`deployment_snapshot`: workload " +
      "`image`/`imageID` digests; `sbom`: the described component's hashes and digests), " +
      "or a subject name matching one of `artifactNames` (at most 20; `*` matches any run " +
      "of characters except `/` and `@`). The evaluation reason names the rule that " +
      "decided. The project's controls are re-evaluated with it.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: Params, body: jsonBody(ProvenanceSubjects) },
    responses: {
      200: json(ProvenanceSubjectsResponse, "The rule now applied"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await requireProjectAccess(c, id);
    const { kv, notifyActivity } = c.var.services;
    const setting = await setProvenanceSubjects(kv, id, c.req.valid("json"));
    await notifyActivity(id);
    return c.json(setting, 200);
  },
);
