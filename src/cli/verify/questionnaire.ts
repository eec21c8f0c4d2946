/**
 * An answered questionnaire, offline (docs/verifier_kit.md, "Answered questionnaires"): the
 * signed manifest, the file's digest and the published versions the answers rest on.
 *
 * @module
 */
import { parsePin, type Pins, UsageError } from "./args.ts";
import { decoder, hex, sha256 } from "./bytes.ts";
import { type JwsHeader, type Keyring, keyringOf, verifyJws } from "./jws.ts";
import { Report } from "./report.ts";

/** `cty` of a questionnaire manifest's protected header. */
const MANIFEST_CTY = "application/vnd.trust-profile.questionnaire-manifest+json";

export interface QuestionnaireOptions {
  manifest: string;
  file: string;
  jwks: string;
  /** Published versions' trust.json or trust.json.jws files the answers rest on. */
  versions: string[];
  pins: Pins;
}

/** Reads the bytes of a file the command line names. */
export interface FileIo {
  readFile(path: string): Promise<Uint8Array>;
  out(line: string): void;
}

const QUESTIONNAIRE_USAGE =
  `Usage: deno run --allow-read verify.ts questionnaire <manifest.jws> <answered file> \\
         --jwks <jwks.json> [--version <trust.json or trust.json.jws>]… [--pin jwks=<kid>]

Verifies, without the network, an answered questionnaire a vendor gave you: the manifest's
signature with the publication key of the JWKS you saved from the vendor's service
(/.well-known/jwks.json), that the file is exactly the one the manifest signs (SHA-256),
and, for each published version document you give (…/versions/N/trust.json or its .jws), that it
is the version the answers rest on (its digest, project and version number).`;

/** Parses `questionnaire …` arguments; null asks for the usage text. */
export function parseQuestionnaireArgs(args: string[]): QuestionnaireOptions | null {
  const positional: string[] = [];
  const versions: string[] = [];
  const pins: Pins = {};
  let jwks: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "help" || arg === "--help" || arg === "-h") return null;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const value = args[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    if (arg === "--jwks") jwks = value;
    else if (arg === "--version") versions.push(value);
    else if (arg === "--pin") parsePin(value, pins);
    else throw new UsageError(`Unknown option "${arg}"`);
  }
  if (pins.publisher !== undefined) {
    throw new UsageError("--pin publisher= is for a trust profile's check, not a questionnaire's");
  }
  if (positional.length !== 2) throw new UsageError("Name the manifest and the answered file");
  if (!jwks) throw new UsageError("Give the JWKS you saved with --jwks <file>");
  return { manifest: positional[0], file: positional[1], jwks, versions, pins };
}

interface PinnedVersion {
  projectSlug: string;
  version: number;
  trustJsonDigest: string | null;
  trustJsonUrl: string;
}

interface ManifestPayload {
  type?: string;
  organization?: { slug?: string; name?: string };
  questionnaire?: { id?: string; name?: string };
  file?: { sha256?: string; bytes?: number };
  createdAt?: string;
  rows?: { key?: string; versions?: PinnedVersion[] }[];
  versions?: PinnedVersion[];
}

/** The manifest's payload after its signature verified, or null (the failure reported). */
async function readManifest(
  io: FileIo,
  options: QuestionnaireOptions,
  report: Report,
): Promise<{ manifest: ManifestPayload; ring: Keyring } | null> {
  const jwks = JSON.parse(decoder.decode(await io.readFile(options.jwks)));
  const ring = await keyringOf(jwks, options.jwks, options.pins, report);
  const jws = decoder.decode(await io.readFile(options.manifest));
  let verified: { header: JwsHeader & { cty?: string }; payload: Uint8Array };
  try {
    verified = await verifyJws(jws, ring);
  } catch (error) {
    report.fail(`manifest: ${(error as Error).message}`);
    return null;
  }
  if (verified.header.cty !== MANIFEST_CTY) {
    report.fail(`manifest: its content type is "${verified.header.cty}", not ${MANIFEST_CTY}`);
    return null;
  }
  let manifest: ManifestPayload;
  try {
    manifest = JSON.parse(decoder.decode(verified.payload));
  } catch {
    report.fail("manifest: the signed payload is not JSON");
    return null;
  }
  if (manifest.type !== "questionnaire-manifest") {
    report.fail("manifest: the signed payload is not a questionnaire manifest");
    return null;
  }
  report.pass(
    `manifest: signed by key ${verified.header.kid} for "${manifest.organization?.slug}", ` +
      `questionnaire "${manifest.questionnaire?.name}" (${
        manifest.rows?.length ?? 0
      } answered rows, ${manifest.createdAt})`,
  );
  return { manifest, ring };
}

/** A version document given on the command line: its trust.json bytes (a JWS verified first). */
async function versionDocument(
  io: FileIo,
  path: string,
  ring: Keyring,
  report: Report,
): Promise<Uint8Array | null> {
  const bytes = await io.readFile(path);
  const text = decoder.decode(bytes).trim();
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/.test(text)) return bytes;
  try {
    const { header, payload } = await verifyJws(text, ring);
    const profile = JSON.parse(decoder.decode(payload));
    if (header.ver !== profile.version) {
      report.fail(`${path}: signed as version ${header.ver} but holds version ${profile.version}`);
      return null;
    }
    return payload;
  } catch (error) {
    report.fail(`${path}: ${(error as Error).message}`);
    return null;
  }
}

/** Checks each given version document against the versions the manifest pins. */
async function checkPinnedVersions(
  io: FileIo,
  options: QuestionnaireOptions,
  manifest: ManifestPayload,
  ring: Keyring,
  report: Report,
): Promise<void> {
  const pinned = manifest.versions ?? [];
  const byDigest = new Map(pinned.map((v) => [v.trustJsonDigest, v]));
  for (const row of manifest.rows ?? []) {
    for (const v of row.versions ?? []) {
      if (byDigest.get(v.trustJsonDigest) !== undefined) continue;
      report.fail(`manifest: row ${row.key} rests on ${v.projectSlug} v${v.version}, not listed`);
    }
  }
  const checked = new Set<PinnedVersion>();
  for (const path of options.versions) {
    const bytes = await versionDocument(io, path, ring, report);
    if (!bytes) continue;
    const digest = `sha256:${hex(await sha256(bytes))}`;
    let profile: { project?: { slug?: string }; version?: number };
    try {
      profile = JSON.parse(decoder.decode(bytes));
    } catch {
      report.fail(`${path}: not a trust.json document`);
      continue;
    }
    const slug = profile.project?.slug;
    const named = pinned.find((v) => v.projectSlug === slug && v.version === profile.version);
    const match = byDigest.get(digest);
    if (!match && !pinned.some((v) => v.projectSlug === slug)) {
      // Nothing to compare it with: no answer rests on this project (none cites its controls),
      // so the document is not needed; it is not evidence against the file either.
      report.note(
        `${path}: not needed, no answer rests on ${
          slug ?? "this project"
        } (none cites its controls)`,
      );
      continue;
    }
    if (!match) {
      report.fail(
        named
          ? `${path}: ${slug} v${profile.version} is not the version the answers rest on (its digest ${digest} differs from ${named.trustJsonDigest})`
          : `${path}: ${slug} v${profile.version} (${digest}) is not a version the manifest pins`,
      );
      continue;
    }
    if (match.projectSlug !== slug || match.version !== profile.version) {
      report.fail(
        `${path}: holds ${slug} v${profile.version}, but the manifest names it ${match.projectSlug} v${match.version}`,
      );
      continue;
    }
    checked.add(match);
    report.pass(
      `${match.projectSlug} v${match.version}: the trust.json the answers rest on (${digest})`,
    );
  }
  for (const v of pinned) {
    if (!checked.has(v)) {
      report.note(
        `${v.projectSlug} v${v.version} not checked: give ${v.trustJsonUrl} with --version`,
      );
    }
  }
}

/**
 * Verifies an answered questionnaire offline: the manifest's signature, the file's digest and
 * the published versions given; returns the number of failures.
 */
export async function verifyQuestionnaire(
  options: QuestionnaireOptions,
  io: FileIo,
): Promise<number> {
  const report = new Report(io.out);
  const read = await readManifest(io, options, report);
  if (!read) return report.failures;
  const { manifest, ring } = read;
  const file = await io.readFile(options.file);
  const digest = hex(await sha256(file));
  if (digest === manifest.file?.sha256 && file.length === manifest.file?.bytes) {
    report.pass(`file: ${options.file} is the answered file the manifest signs (sha256 ${digest})`);
  } else {
    report.fail(
      `file: ${options.file} is not the file the manifest signs (sha256 ${digest}, expected ${manifest.file?.sha256}): an answer or evidence cell changed, or it is another file`,
    );
  }
  await checkPinnedVersions(io, options, manifest, ring, report);
  return report.failures;
}

/** `verify.ts questionnaire …`: exits 0 verified, 1 a check failed, 2 usage, 3 unreadable. */
export async function runQuestionnaire(args: string[]): Promise<never> {
  let options: QuestionnaireOptions | null;
  try {
    options = parseQuestionnaireArgs(args);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.error(QUESTIONNAIRE_USAGE);
    Deno.exit(2);
  }
  if (!options) {
    console.log(QUESTIONNAIRE_USAGE);
    Deno.exit(0);
  }
  try {
    const failures = await verifyQuestionnaire(options, {
      readFile: Deno.readFile,
      out: (line) => console.log(line),
    });
    if (failures > 0) {
      console.log(`\nNOT VERIFIED: ${failures} check(s) failed for ${options.file}`);
      Deno.exit(1);
    }
    console.log(`\nVERIFIED: ${options.file} as answered and signed`);
    Deno.exit(0);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.log("\nNOT VERIFIED: a file could not be read");
    Deno.exit(3);
  }
}
