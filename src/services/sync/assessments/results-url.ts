import { type BaseConfig, serviceUrls } from "../../../shared/config.js";

/**
 * The recruiter's results page of a token: served by the recruiting API at its origin, beside the
 * candidate's `/interview/{token}` (services/recruiting/interviews/results-page.routes.ts).
 */
export const RESULTS_PAGE_PATH = "/assessment-results";

export function resultsPageUrl(config: BaseConfig): (token: string) => string {
  const origin = new URL(serviceUrls(config).api).origin;
  return (token) => `${origin}${RESULTS_PAGE_PATH}/${token}`;
}
