/**
 * Whether a link from the API may be rendered as a live link: an absolute http or https URL only.
 * Any other scheme (`javascript:`, `data:`, `vbscript:`) is shown as text, whatever the API let
 * through before it checked links (the CSP would stop a script link too; this is the first line).
 */
export function isSafeHref(href: string | null | undefined): href is string {
  return typeof href === "string" && /^https?:\/\/[^\s/?#]+/i.test(href.trim()) && href.trim() === href;
}
