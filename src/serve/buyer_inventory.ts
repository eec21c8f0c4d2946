/**
 * The access inventory's side of a buyer's reads: the access settings' defaults, how long
 * reads and their summaries are kept, recording a known party's read, and who a caller is in
 * the inventory. Re-exported by src/serve/buyers.ts.
 */
import { DEFAULT_SUMMARY_MONTHS } from "../domain/buyers.ts";
import type { TrustDocument } from "../domain/documents.ts";
import type { Organization } from "../domain/workspace.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { type AccessSettings, getAccessSettings, recordAccessEvent } from "../store/buyers.ts";
import type { BuyerCaller } from "./buyer_sessions.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const MONTH_MS = 31 * DAY_MS;

export const DEFAULT_ACCESS_SETTINGS: AccessSettings = {
  denyDomains: [],
  summaryMonths: DEFAULT_SUMMARY_MONTHS,
};

/** How long reads and their summaries are kept: the setting's months and the current one. */
export function keepMs(settings: AccessSettings): number {
  return (settings.summaryMonths + 1) * MONTH_MS;
}

/** Records a known party's read of a document in the inventory and its monthly summary. */
export async function recordRead(
  kv: Deno.Kv,
  org: Organization,
  read: {
    kind: "view" | "download";
    domain: string;
    person: string;
    document: Pick<TrustDocument, "id" | "title">;
    via: "session" | "service" | "link";
    now: Date;
  },
): Promise<void> {
  const settings = await getAccessSettings(kv, org.id, DEFAULT_ACCESS_SETTINGS);
  await recordAccessEvent(kv, org.id, {
    id: timeOrderedUuid(read.now),
    at: read.now.toISOString(),
    kind: read.kind,
    domain: read.domain,
    person: read.person,
    documentId: read.document.id,
    title: read.document.title,
    via: read.via,
  }, keepMs(settings));
}

/** Who a caller is in the inventory: the person, or the service token by name. */
export function personOf(caller: BuyerCaller): string {
  return caller.token.kind === "session" ? caller.token.email : `token:${caller.token.name}`;
}
