/**
 * The first-run setup link: while no account exists (SIGNUP=first-run), each
 * start mints a one-time link that creates the first account.
 */
import type { Config } from "../../config.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { hasAnyAccount, setSetupToken } from "../../store/accounts.ts";

/** Returns the setup URL to print, or null when no setup is needed. */
export async function prepareFirstRun(kv: Deno.Kv, config: Config): Promise<string | null> {
  if (config.auth.mode !== "builtin" || config.signup !== "first-run") return null;
  if (await hasAnyAccount(kv)) return null;
  const token = randomToken();
  await setSetupToken(kv, await sha256Hex(token));
  return `${config.baseUrl}/signup?setup=${token}`;
}
