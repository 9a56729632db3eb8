import type { JobApplicationCreate } from "../../../contracts/proxy/index.js";
import { OPERATIONS } from "../operations/operations.table.js";
import { shapeBody } from "../operations/upstream-request.js";
import type { ProxyRoutes } from "../proxy-deps.js";
import { forward, route } from "./forward.js";

/** Unified ATS: every read and write of one integration, forwarded with its `X-Integration-Id`. */
export const atsRoutes: ProxyRoutes = async (app, { deps }) => {
  const { createJobApplication } = OPERATIONS;
  for (const op of [
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
  ]) {
    route(app, op, (request, reply) => forward(deps, op, request, reply));
  }

  route(app, createJobApplication, (request, reply) => {
    const body = shapeBody(createJobApplication.schema.body, request.body) as Omit<JobApplicationCreate, "source"> & {
      source?: string | { name: string };
    };
    // The spec names the source; the upstream takes a source object.
    if (typeof body.source === "string") body.source = { name: body.source };
    return forward(deps, createJobApplication, request, reply, { body });
  });
};
