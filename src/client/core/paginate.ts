import { HirebridgeError } from "./errors.js";

export type PageOf<T> = { items: T[]; next: string | null | undefined };

/**
 * Walks a cursor-paginated list page by page and yields its records. Pages are fetched lazily, one
 * at a time, as the consumer iterates; breaking out of the loop stops fetching. A server that hands
 * back the cursor it was given would loop forever, so that is an error.
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<PageOf<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.next) return;
    if (page.next === cursor) throw new HirebridgeError("The server returned the same page cursor twice; stopping");
    cursor = page.next;
  }
}
