/**
 * The Sigstore verifier, loaded on first use: `@sigstore/verify`, `@sigstore/bundle` and
 * `@sigstore/protobuf-specs` (src/sigstore/verify.ts) are needed only for evidence that claims
 * a signature, so a start does not load them.
 */
import type { SigstoreVerifier } from "./verify.ts";

export { claimsSignature } from "./claims.ts";

/** The verifier for `root` (null: the shipped public-good root), built once per root. */
export async function loadSigstoreVerifier(
  root: Record<string, unknown> | null,
): Promise<SigstoreVerifier> {
  const { sigstoreVerifierFor } = await import("./verify.ts");
  return sigstoreVerifierFor(root);
}

/**
 * Checks at start-up that a configured trusted root (SIGSTORE_TRUSTED_ROOT) is usable, and
 * throws an Error saying what is wrong when it is not. The shipped public-good root is known
 * good (tests/sigstore verifies real bundles with it), so without one nothing is loaded.
 */
export async function checkTrustedRoot(root: Record<string, unknown> | null): Promise<void> {
  if (root !== null) await loadSigstoreVerifier(root);
}
