/**
 * The verifier kit: checks a project's published trust profile without
 * trusting the service that serves it. Served at /verify.ts, so anyone with Deno runs
 *
 *   deno run --allow-net https://trust.example.com/verify.ts acme
 *   deno run --allow-net --allow-read https://trust.example.com/verify.ts \
 *     https://trust.example.com/trust/acme --checkpoint pinned.checkpoint \
 *     --pin jwks=<kid> --pin log=<verifier key>
 *
 * It reads every page of the version listing and fails on a listing out of
 * order, a repeated version or a missing one; fetches each version's
 * trust.json and JWS and checks the signature (EdDSA, WebCrypto) over the
 * exact bytes with a JWKS key whose id is its RFC 7638 thumbprint; chains
 * each version to the previous verified one (`prev` of version n is the
 * digest of version n−1); verifies the log's latest checkpoint (C2SP signed
 * note) with the log's verifier key and each version's inclusion proof
 * (RFC 9162 §2.1.3.2) against it; checks that the versions it verified are
 * exactly the project's entries in the log up to that checkpoint (count, leaf
 * indexes and leaf hashes) and that the latest trust.json is the newest
 * version; and, with a pinned checkpoint, a consistency proof (§2.1.4.2) that
 * the log only grew since. With `--pin`, only the pinned keys are trusted;
 * without, it prints the keys it trusted on first use. Any failure exits 1.
 * When the log records that the slug changed publisher (a deleted project's
 * slug, released by the service's operator and taken by another project), the
 * kit reports "a different publisher since entry N" and fails, unless that
 * change is pinned (`--pin publisher=N`). Run on a trust center's URL
 * (`/public/trust/<organization>`), it checks the organization slug's change
 * of holder the same way (`--pin organization=N`) and lists the projects to
 * verify one by one.
 *
 * Its source is src/cli/verify/: the entry main.ts (served at /verify/main.ts) and one module
 * a concern, each served at /verify/{module} and imported by relative URL only, with nothing
 * else imported (Deno's WebCrypto and fetch are all it needs). `deno task kit` joins them
 * into src/cli/verify.ts, the one file with no imports served at /verify.ts, so a buyer can
 * keep a single copy, read it once and run it offline.
 *
 * @module
 */
import { type Options, parseArgs, usage } from "./args.ts";
import { verify } from "./profile.ts";
import { verifyOrganization } from "./organization.ts";
import { runQuestionnaire } from "./questionnaire.ts";

export { kitReference, type Options, parseArgs, type Pins, usage, UsageError } from "./args.ts";
export {
  type Checkpoint,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from "./log_proofs.ts";
export { FetchError, type Io } from "./net.ts";
export { verify } from "./profile.ts";
export { verifyOrganization } from "./organization.ts";
export {
  type FileIo,
  parseQuestionnaireArgs,
  type QuestionnaireOptions,
  verifyQuestionnaire,
} from "./questionnaire.ts";

/** Where the kit is served from: /verify.ts (the joined file; this module's URL there). */
const KIT = import.meta.url.replace(/\/verify\/main\.ts$/, "/verify.ts");

if (import.meta.main && Deno.args[0] === "questionnaire") {
  await runQuestionnaire(Deno.args.slice(1));
}

if (import.meta.main) {
  let options: Options | null;
  try {
    options = parseArgs(Deno.args, KIT);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.error("Run with --help for usage.");
    Deno.exit(2);
  }
  if (!options) {
    console.log(usage(KIT));
    Deno.exit(0);
  }
  try {
    const io = {
      fetch,
      readTextFile: Deno.readTextFile,
      writeTextFile: Deno.writeTextFile,
      out: (line: string) => console.log(line),
    };
    const failures = options.organization === undefined
      ? await verify(options, io)
      : await verifyOrganization(options, io);
    const what = options.organization !== undefined
      ? `the trust center "${options.organization}"`
      : options.domain === undefined
      ? `"${options.slug}"`
      : `the custom domain "${options.domain}"`;
    if (failures > 0) {
      console.log(`\nNOT VERIFIED: ${failures} check(s) failed for ${what}`);
      Deno.exit(1);
    }
    console.log(`\nVERIFIED: ${what} at ${options.server}`);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.log(`\nNOT VERIFIED: the service could not be read`);
    Deno.exit(3);
  }
}
