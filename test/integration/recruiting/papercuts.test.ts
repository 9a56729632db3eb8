import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { expectDetail, useRecruiting, type Caller } from "./recruiting-harness.js";

/** What a newcomer trips over first: a path's trailing slash, a body sent without a JSON content type. */
describeEachDatabase("recruiting API: answers that say what to do", (getDb) => {
  const h = useRecruiting(getDb);
  let me: Caller;
  let positionId: string;
  before(async () => {
    me = await h().login();
    positionId = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Papercuts" })).json().id;
  });

  test("a candidate path without its trailing slash is a 404 naming the path that exists, and the other way round", async () => {
    const candidates = `/org/${me.orgId}/positions/${positionId}`;
    expectDetail(await me.call("GET", candidates), 404, `Not Found: the path is GET /api/v1${candidates}/ (with a trailing slash)`);
    expectDetail(
      await me.call("POST", candidates, { name: "x" }),
      404,
      `Not Found: the path is POST /api/v1${candidates}/ (with a trailing slash)`,
    );
    const interview = `/org/${me.orgId}/positions/${positionId}/candidates/${crypto.randomUUID()}/interview`;
    expectDetail(
      await me.call("PUT", interview, { status: "completed" }),
      404,
      `Not Found: the path is PUT /api/v1${interview}/ (with a trailing slash)`,
    );
    const position = `/org/${me.orgId}/position/${positionId}/`;
    expectDetail(
      await me.call("GET", position),
      404,
      `Not Found: the path is GET /api/v1${position.slice(0, -1)} (without a trailing slash)`,
    );
    expectDetail(await me.call("GET", `/org/${me.orgId}/nothing-here`), 404, "Not Found");
    // The path with the slash is the one that works.
    assert.equal((await me.call("GET", `${candidates}/`)).statusCode, 200);
  });

  test("a body without a JSON content type is a 415 saying JSON is expected", async () => {
    const res = await h().call("POST", `/org/${me.orgId}/position`, {
      token: me.token,
      payload: "name=Plain",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectDetail(
      res,
      415,
      "Unsupported Media Type: send the body as JSON with Content-Type: application/json (got application/x-www-form-urlencoded)",
    );
    const text = await h().call("PUT", `/org/${me.orgId}/position/${positionId}`, {
      token: me.token,
      payload: "{}",
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
    expectDetail(text, 415, /JSON .*\(got text\/plain\)$/);
  });
});
