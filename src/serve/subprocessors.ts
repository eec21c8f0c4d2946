/**
 * The public subprocessor list of an organization (GET /public/trust/{orgSlug}/subprocessors
 * and the MCP tool get_subprocessors): current subprocessors and their history, without
 * who made each change. Read per request, so a change shows at once.
 */
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import type { PublicSubprocessors } from "../domain/subprocessors.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { listSubprocessorHistory, listSubprocessors } from "../store/subprocessors.ts";

/** The organization's public subprocessor list, or the trust center's 404. */
export async function publicSubprocessors(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Pick<Config, "baseUrl"> },
): Promise<PublicSubprocessors> {
  const org = await getOrganizationBySlug(kv, orgSlug);
  if (!org) throw notFound("No public trust center by that name");
  const [subprocessors, history] = await Promise.all([
    listSubprocessors(kv, org.id),
    listSubprocessorHistory(kv, org.id),
  ]);
  return {
    organization: { name: org.name, slug: org.slug },
    subprocessors,
    history: history.map(({ actor: _actor, ...event }) => event),
    url: `${trustCenterUrl(options.config as Config, org.slug)}/subprocessors`,
  };
}
