/**
 * The key register's area of a project's webhooks, their deliveries and the service's bookkeeping
 * of their destinations. A collection added to the store is registered in the area it belongs to;
 * src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const WEBHOOK_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
  webhooks: { owner: "project", public: "none", note: "[projectId, id]" },
  webhooks_by_user: {
    owner: "project",
    public: "none",
    note: "[userId, webhookId], from the webhook",
  },
  webhook_writes: {
    owner: "project",
    public: "none",
    note: "['project', projectId] / ['user', userId]",
  },
  webhook_deliveries: { owner: "project", public: "none", note: "[webhookId, deliveryId]" },
  webhook_deliveries_by_event: { owner: "project", public: "none", note: "[webhookId, eventId]" },
  webhook_circuits: { owner: "project", public: "none", note: "[webhookId]" },
  webhook_in_flight: {
    owner: "project",
    public: "none",
    note: "[userId, webhookId], from the webhook",
  },
  webhook_in_flight_writes: { owner: "user", public: "none", note: "[userId]" },
  webhook_destinations: {
    owner: "service",
    public: "none",
    note: "[origin]: a host's attempts without an answer in a row, shared; expires by itself",
  },
  webhook_ping_counts: {
    owner: "project",
    public: "none",
    note: "['webhook', id] / ['project', id]",
  },
};
