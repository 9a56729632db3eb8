import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, Logger } from "pino";

type Level = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

/** A plain object to merge the request's bindings into (not an Error, which pino serialises as `err`). */
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/**
 * A request's logger (`request.log`), made without a pino child. Fastify makes a child logger per
 * request to bind its id, and pino's child() serialises the bindings through the redaction's
 * wildcard paths: about 1% of a proxied request's CPU in the profile, for a logger that most
 * requests never write to (the access line aside). This one holds the bindings and the service
 * logger: a line whose first argument is a plain object (or only a message) is written by the
 * service logger with the bindings merged in front of the object's fields, which prints the same
 * line a child would; anything else (an Error first, `child()`, `bindings()`, a level change)
 * makes the real child once and delegates to it from then on.
 */
export class RequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  /** The pino child, made on first need. */
  #real(): Logger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }

  #write(level: Level, args: unknown[]): void {
    const log = this.#child ?? this.#parent;
    if (!log.isLevelEnabled(level)) return;
    if (this.#child) {
      (this.#child[level] as (...a: unknown[]) => void)(...args);
      return;
    }
    const [first, ...rest] = args;
    if (typeof first === "string") {
      (this.#parent[level] as (...a: unknown[]) => void)({ ...this.#bindings }, first, ...rest);
    } else if (isPlainObject(first)) {
      (this.#parent[level] as (...a: unknown[]) => void)({ ...this.#bindings, ...first }, ...rest);
    } else {
      (this.#real()[level] as (...a: unknown[]) => void)(...args);
    }
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  trace(...args: unknown[]): void {
    this.#write("trace", args);
  }
  debug(...args: unknown[]): void {
    this.#write("debug", args);
  }
  info(...args: unknown[]): void {
    this.#write("info", args);
  }
  warn(...args: unknown[]): void {
    this.#write("warn", args);
  }
  error(...args: unknown[]): void {
    this.#write("error", args);
  }
  fatal(...args: unknown[]): void {
    this.#write("fatal", args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options);
  }
  bindings(): Bindings {
    return this.#real().bindings();
  }
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger, or a real child when the route asks for its own
 * level or serializers (none do today).
 */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  if (opts.level !== undefined || opts.serializers !== undefined) return logger.child(bindings, opts);
  return new RequestLogger(logger as unknown as Logger, bindings) as unknown as FastifyBaseLogger;
}
