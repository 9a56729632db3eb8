/** What a delivery's body is made of: the event as stored. */
export type BodySource = { type: string; createdAt: Date; data: string; test: boolean };

/**
 * The body every attempt of an event sends, byte for byte the same (the signature covers it):
 * `{ type, timestamp, data }`, and `"test": true` after them for a test event. `data` is the
 * stored JSON text, as written. The deliveries API shows the same body.
 */
export const bodyOf = (m: BodySource) =>
  `{"type":${JSON.stringify(m.type)},"timestamp":"${m.createdAt.toISOString()}","data":${m.data}${m.test ? ',"test":true' : ""}}`;
