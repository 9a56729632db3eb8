import type { ProxyOperation } from "../operations/operation.js";
import { OPERATIONS } from "../operations/operations.table.js";
import { shapeBody } from "../operations/upstream-request.js";
import type { ProxyRoutes } from "../proxy-deps.js";
import { forward, route } from "./forward.js";

/** Unified ATS: every read and write of one integration, forwarded with its `X-Integration-Id`. */
export const atsRoutes: ProxyRoutes = async (app, { deps }) => {
  const { createJobApplication } = OPERATIONS;
  const forwarded: ProxyOperation[] = [
    OPERATIONS.listApplications,
    OPERATIONS.moveApplicationStage,
    OPERATIONS.addApplicationResultLink,
    OPERATIONS.addApplicationNote,
    OPERATIONS.listApplicationAttachments,
    OPERATIONS.addCandidateTag,
    OPERATIONS.removeCandidateTag,
    OPERATIONS.listTags,
    OPERATIONS.listApplicationStages,
    OPERATIONS.listJobs,
    OPERATIONS.listUsers,
    OPERATIONS.listOffers,
    OPERATIONS.listRejectionReasons,
    OPERATIONS.listInterviews,
  ];
  for (const op of forwarded) route(app, op, (request, reply) => forward(deps, op, request, reply));

  route(app, createJobApplication, (request, reply) => {
    const shaped = shapeBody(createJobApplication.schema.body, request.body);
    // The spec names the source; the upstream takes a source object.
    const body = typeof shaped.source === "string" ? { ...shaped, source: { name: shaped.source } } : shaped;
    return forward(deps, createJobApplication, request, reply, { body });
  });
};
