/**
 * A position's API answer (`toPosition`'s shape: `min_score` and `agent_id` left out while null,
 * the other nullable fields null, times in toISOString's format) as JSON text built by the
 * database for the row alias `a`: the sync's one-statement upserts of positions build their
 * events' data with it (candidate-json.ts does the same for candidates).
 */
export function positionJsonText(a: string): string {
  const iso = (column: string) => `to_char(${a}.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const orNull = (column: string) => `coalesce(to_json(${a}.${column})::text, 'null')`;
  return `concat(
    '{"id":"', ${a}.id, '","name":', to_json(${a}.name), ',"state":', to_json(${a}.state),
    ',"department":', ${orNull("department")}, ',"location":', ${orNull("location")},
    ',"min_score":' || ${a}.min_score,
    ',"role_description":', ${orNull("role_description")}, ',"position_calender_link":', ${orNull("position_calender_link")},
    ',"created_at":"', ${iso("created_at")}, '","accepted_languages":', array_to_json(${a}.accepted_languages),
    ',"updated_at":"', ${iso("updated_at")}, '"', ',"agent_id":' || to_json(${a}.agent_id),
    ',"candidate_stage":', ${orNull("candidate_stage")}, ',"passed_stage":', ${orNull("passed_stage")},
    ',"rejected_stage":', ${orNull("rejected_stage")}, ',"needs_reviewed_stage":', ${orNull("needs_reviewed_stage")},
    ',"auto_update_stages":', ${a}.auto_update_stages::text,
    ',"upstream_job_id_id":', ${orNull("upstream_job_id_id")}, ',"upstream_integration_id":', ${orNull("upstream_integration_id")}, '}')`;
}
