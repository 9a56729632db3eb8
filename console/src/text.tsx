/**
 * Text written for docs (the event catalogue's descriptions) shown as text: `code` spans become
 * <code>, and the rest of the Markdown or HTML a description may carry (emphasis, links, tags,
 * entities) is reduced to its words, never shown as literal markup.
 */
import type { ComponentChildren } from "preact";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Markdown and HTML reduced to plain words (no code spans here: see `DocText`). */
export function plainWords(s: string): string {
  return s
    .replace(/<[^>]*>/g, "") // HTML tags
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // [text](url), ![alt](src)
    .replace(/(\*\*|__)(.+?)\1/g, "$2") // strong
    .replace(/(^|[^\w*])[*_](?!\s)(.+?)(?<!\s)[*_](?=[^\w*]|$)/g, "$1$2") // emphasis
    .replace(/~~(.+?)~~/g, "$1")
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+)/gm, "") // headings, quotes, bullets
    .replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === "#") return String.fromCodePoint(e[1]?.toLowerCase() === "x" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    });
}

/** `text` as words with its `code` spans as <code>. */
export function DocText(props: { text: string }) {
  const parts: ComponentChildren[] = [];
  props.text.split(/(`[^`]+`)/).forEach((part, i) => {
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) parts.push(<code key={i}>{part.slice(1, -1)}</code>);
    else if (part) parts.push(plainWords(part));
  });
  return <>{parts}</>;
}
