import { PRIORITY } from "../../shared/jobs/queue.js";

/** Triggers a person waits for: a connect's first sync (and its follow-up model), a user's sync-all (force sync). */
const INTERACTIVE_TRIGGERS = new Set(["integration-created", "sync-all"]);
/** Scheduled background work: the weekly safety net. */
const BACKGROUND_TRIGGERS = new Set(["weekly"]);

/** How soon a trigger's sync job runs among the ready ones (the upstream's webhooks in between). */
export function syncPriority(trigger: string): number {
  if (INTERACTIVE_TRIGGERS.has(trigger)) return PRIORITY.interactive;
  return BACKGROUND_TRIGGERS.has(trigger) ? PRIORITY.background : PRIORITY.webhook;
}
