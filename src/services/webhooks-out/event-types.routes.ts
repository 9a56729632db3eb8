import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { errorResponses } from "../../contracts/recruiting/fields.js";
import {
  EVENT_CATALOGUE,
  EVENT_TYPES,
  EventTypeCatalogueSchema,
  eventEnvelopeSchema,
  type EventTypeCatalogue,
} from "../../contracts/webhooks-out/events.js";
import { plainText } from "../../contracts/webhooks-out/plain-text.js";

/** The catalogue as served: each type's JSON Schema without TypeBox's own markers. */
const CATALOGUE: EventTypeCatalogue = {
  items: EVENT_TYPES.map((type) => ({
    type,
    description: EVENT_CATALOGUE[type].description,
    description_text: plainText(EVENT_CATALOGUE[type].description),
    schema: JSON.parse(JSON.stringify(eventEnvelopeSchema(type))) as unknown,
  })),
};

/** `GET /webhook-event-types`: every event type an endpoint can receive, with the schema of its body. */
export const eventTypeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/webhook-event-types",
    {
      schema: {
        tags: ["webhook endpoints"],
        summary: "List the webhook event types",
        description:
          "Each event type with its description and the JSON Schema of the body delivered for it, `{ type, timestamp, data }` (docs/webhooks-out.md).",
        security: [{ bearer: [] }],
        response: { 200: EventTypeCatalogueSchema, 401: errorResponses[401] },
      },
    },
    async () => CATALOGUE,
  );
};
