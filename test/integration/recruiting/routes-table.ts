import { newCandidate } from "./recruiting-harness.js";

export type Ids = { org: string; position: string; candidate: string };
export type RouteCase = {
  name: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
};

const pos = (i: Ids) => `/org/${i.org}/position/${i.position}`;
const cands = (i: Ids) => `/org/${i.org}/positions/${i.position}/`;
const cand = (i: Ids) => `/org/${i.org}/positions/${i.position}/candidates/${i.candidate}/`;

/** Every /org route of the recruiting API, with a valid body, for the cross-cutting suites. */
export const ORG_ROUTES: RouteCase[] = [
  { name: "list positions", method: "GET", path: (i) => `/org/${i.org}/position` },
  { name: "create position", method: "POST", path: (i) => `/org/${i.org}/position`, body: () => ({ name: "Intruder" }) },
  { name: "get position", method: "GET", path: pos },
  { name: "update position", method: "PUT", path: pos, body: () => ({ name: "Renamed", min_score: 1 }) },
  { name: "list candidates", method: "GET", path: cands },
  { name: "create candidate", method: "POST", path: cands, body: () => newCandidate() },
  { name: "bulk update candidates", method: "PUT", path: cands, body: (i) => [{ id: i.candidate, state: "rejected" }] },
  { name: "get candidate", method: "GET", path: cand },
  { name: "update candidate", method: "PUT", path: cand, body: () => ({ name: "Renamed", hired: true }) },
  { name: "get interview", method: "GET", path: (i) => `${cand(i)}interview/` },
  { name: "report interview", method: "PUT", path: (i) => `${cand(i)}interview/`, body: () => ({ status: "cancelled" }) },
  {
    name: "correct interview",
    method: "POST",
    path: (i) => `${cand(i)}interview/correction`,
    body: () => ({ score: 1, reason: "a second look" }),
  },
  { name: "export candidate", method: "GET", path: (i) => `${cand(i)}export` },
  // Last: in the suites they must be refused, and were they not, the routes above would still have run.
  { name: "erase candidate", method: "DELETE", path: cand },
  { name: "erase position", method: "DELETE", path: pos },
];
