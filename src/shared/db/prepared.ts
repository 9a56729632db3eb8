import type { Queryable } from "./database.js";

/**
 * A named prepared statement per database (or transaction) handle, built on first use. On
 * Postgres, node-postgres parses and plans a named statement once per pooled connection and then
 * sends only its parameters; the statement text must be the same for every handle, so `build` may
 * only vary its placeholders' values, never its SQL.
 */
export function prepared<P>(build: (q: Queryable) => P): (q: Queryable) => P {
  const byHandle = new WeakMap<Queryable, P>();
  return (q) => {
    let statement = byHandle.get(q);
    if (!statement) {
      statement = build(q);
      byHandle.set(q, statement);
    }
    return statement;
  };
}
