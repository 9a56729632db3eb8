/**
 * Injected faults: which request fails, and how. `fail_next` fails the next N matching requests
 * with the configured kinds in turn (deterministic); otherwise each matching request fails with
 * probability `fault_rate` (1 = every one) and a kind drawn from `fault_kinds`.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { SandboxError, sendSandboxError } from "../errors.js";
import type { FaultKind, RuntimeSettings } from "./runtime-settings.js";

export class FaultInjector {
  #turn = 0;
  #closing = false;
  readonly #held = new Set<{ timer: NodeJS.Timeout; release: () => void }>();

  constructor(
    private readonly settings: RuntimeSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** Requests a `timeout` fault is holding right now. */
  get holding(): number {
    return this.#held.size;
  }

  /** The fault for a request to `path` (the part after /v1), or null. */
  pick(path: string): FaultKind | null {
    const s = this.settings;
    if (s.fault_path_prefix !== null && !path.startsWith(s.fault_path_prefix)) return null;
    if (s.fail_next > 0) {
      s.fail_next--;
      return s.fault_kinds[this.#turn++ % s.fault_kinds.length]!;
    }
    if (s.fault_rate <= 0 || this.random() >= s.fault_rate) return null;
    return s.fault_kinds[Math.floor(this.random() * s.fault_kinds.length)]!;
  }

  /** Answers (or does not answer) the request the way the fault says. */
  async inject(kind: FaultKind, request: FastifyRequest, reply: FastifyReply, atsScope: boolean): Promise<void> {
    request.log.info({ fault: kind }, "injecting fault");
    switch (kind) {
      case "500":
        sendSandboxError(
          reply,
          new SandboxError(500, "PLATFORM.UNKNOWN_ERROR", "Injected fault: internal error.", { title: "Internal server error" }),
        );
        return;
      case "503":
        // REMOTE.* exists only in the ATS error list; the general endpoints get the platform code.
        sendSandboxError(
          reply,
          new SandboxError(
            503,
            atsScope ? "REMOTE.SERVICE_UNAVAILABLE" : "PLATFORM.UNKNOWN_ERROR",
            "Injected fault: service unavailable.",
            {
              title: "Service unavailable",
              headers: { "retry-after": "1" },
            },
          ),
        );
        return;
      case "502":
        // What a load balancer in front of the upstream answers: not JSON at all.
        reply.status(502).type("text/plain; charset=utf-8").send("502 Bad Gateway");
        return;
      case "drop":
        reply.hijack();
        request.raw.socket.destroy();
        return;
      case "timeout":
        await this.#hold(reply);
        // Released by a closing server: the server has already swept its idle connections, so
        // this one must close itself after the answer or the close waits for keep-alive to expire.
        if (this.#closing) reply.header("connection", "close");
        if (!request.raw.socket.destroyed) {
          sendSandboxError(
            reply,
            new SandboxError(504, "PLATFORM.TASK_TIMED_OUT", "Injected fault: the request timed out.", { title: "Timed out" }),
          );
        }
        return;
    }
  }

  /** Holds the request for fault_timeout_ms, or until the client gives up or the server closes. */
  #hold(reply: FastifyReply): Promise<void> {
    return new Promise((resolve) => {
      if (this.#closing) return resolve();
      const entry = {
        timer: setTimeout(() => entry.release(), this.settings.fault_timeout_ms),
        release: () => {
          clearTimeout(entry.timer);
          this.#held.delete(entry);
          reply.raw.off("close", entry.release);
          resolve();
        },
      };
      this.#held.add(entry);
      // The response closes early only when the client went away.
      reply.raw.once("close", entry.release);
    });
  }

  /** Lets every held request go (on shutdown, so closing never waits for a fault's timeout). */
  releaseAll(): void {
    // Requests still arriving on kept-alive connections while the server closes are not held either.
    this.#closing = true;
    for (const entry of [...this.#held]) entry.release();
  }
}
