import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "./errors.js";
import { isSafeHref } from "./links.js";

/** Client-side navigation: pushes the path and tells the app to render it. */
export function navigate(path: string): void {
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function Link(props: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={props.href}
      class={props.class}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

/**
 * A link to somewhere outside the console (a recording, a transcript), rendered as a live link only
 * when it is an absolute http or https URL: any other scheme (`javascript:`, `data:`) is shown as
 * text, whatever the API let through before it checked links.
 */
export function ExternalLink(props: { href: string | null | undefined; children: ComponentChildren }) {
  if (!props.href) return <>–</>;
  if (!isSafeHref(props.href)) return <span class="muted">{props.href}</span>;
  return (
    <a href={props.href} rel="noopener noreferrer" target="_blank">
      {props.children}
    </a>
  );
}

/** An error said in words, announced to screen readers. */
export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {describeError(props.error).message}
    </p>
  );
}

/** Loads `load()` when `deps` change (and every `pollMs` while given); keeps the last good value while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number | null) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);
  useEffect(() => {
    let stop = false;
    load().then(
      (v) => {
        if (stop || !alive.current) return;
        setValue(v);
        setError(null);
      },
      (err: unknown) => !stop && alive.current && setError(err),
    );
    return () => void (stop = true);
  }, [...deps, tick]);
  useEffect(() => {
    if (!pollMs) return;
    const t = setTimeout(() => setTick((n) => n + 1), pollMs);
    return () => clearTimeout(t);
  }, [pollMs, tick, value]);
  return { value, error, reload: () => setTick((n) => n + 1) };
}

export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "–");
export const fmtMs = (ms: number | null | undefined) => (ms === null || ms === undefined ? "–" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

export function StateBadge(props: { state: string | null | undefined }) {
  const s = props.state ?? "unknown";
  return <span class={`badge badge-${s.toLowerCase().replace(/[^a-z_]/g, "")}`}>{s}</span>;
}

/** A bar chart as SVG, labelled for screen readers by its caption and a table-like description. */
export function BarChart(props: {
  title: string;
  bars: { label: string; value: number; tone?: string }[];
  unit?: string;
  /** How a value reads (on its bar and to a screen reader); default: the number and `unit`. */
  format?: (value: number) => string;
  height?: number;
}) {
  const max = Math.max(1, ...props.bars.map((b) => b.value));
  const show = props.format ?? ((v: number) => `${v}${props.unit ?? ""}`);
  const h = props.height ?? 140;
  // Each bar gets a slot wide enough for its label (about 7 units a character at this font size).
  const slot = Math.max(44, ...props.bars.map((b) => b.label.length * 7 + 10));
  const w = Math.max(240, props.bars.length * slot);
  const summary = props.bars.map((b) => `${b.label}: ${show(b.value)}`).join(", ");
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${w} ${h + 34}`} role="img" aria-label={`${props.title}. ${summary || "No data yet."}`} preserveAspectRatio="xMinYMin meet">
        {props.bars.map((b, i) => {
          const bh = Math.round((b.value / max) * h);
          const x = i * slot + (slot - 30) / 2;
          return (
            <g key={i}>
              <rect x={x} y={h - bh + 14} width="30" height={Math.max(bh, 1)} class={`bar ${b.tone ?? ""}`} />
              <text x={x + 15} y={h - bh + 10} text-anchor="middle" class="bar-value">
                {props.format ? props.format(b.value) : b.value}
              </text>
              <text x={x + 15} y={h + 28} text-anchor="middle" class="bar-label">
                {b.label}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** A data table: its caption for screen readers, one header cell per column, the rows as children. */
export function DataTable(props: { caption: string; headers: string[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.headers.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** An integration's health: its state as a badge, and why. */
export function HealthNote(props: { health: { state: string; reason: string | null } }) {
  const { state, reason } = props.health;
  return (
    <span class="health">
      <span class={`badge badge-health-${state}`}>{state}</span>
      {reason && <span class="health-reason"> {reason}</span>}
    </span>
  );
}
