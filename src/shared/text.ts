/**
 * Cuts `text` to at most `max` characters (code points, so a character is never split), marking
 * the cut with an ellipsis; null and undefined answer null. The one truncation of upstream text to
 * a column's length (the recruiting store's upserts) and of long text sent upstream (a note).
 */
export function cut(text: string, max: number): string;
export function cut(text: string | null | undefined, max: number): string | null;
export function cut(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  if (text.length <= max) return text; // UTF-16 units: never fewer than code points, so nothing to cut
  const chars = [...text];
  if (chars.length <= max) return text;
  return `${chars
    .slice(0, max - 1)
    .join("")
    .trimEnd()}…`;
}
