import type { HttpClient } from "../core/http-client.js";

/** What every proxy resource needs: the HTTP core and the proxy's base URL (`…/api/v1`). */
export type ProxyContext = { http: HttpClient; baseUrl: string };
