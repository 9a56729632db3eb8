import type { Clock } from "../core/clock.js";
import type { HttpClient } from "../core/http-client.js";

/** What every proxy resource needs: the HTTP core, the proxy's base URL (`…/api/v1`) and the clock (polling). */
export type ProxyContext = { http: HttpClient; baseUrl: string; clock: Clock };
