import type { Logger } from "pino";
import type { BaseConfig, ServiceUrls } from "./config.js";
import type { Database } from "./db/database.js";
import type { App } from "./http/create-app.js";
import type { JobQueue } from "./jobs/queue.js";

export type ServiceName = "token" | "api" | "proxy" | "sandbox" | "console";
/** Start order: the token service first so the others' discovery finds it. */
export const SERVICE_ORDER: ServiceName[] = ["token", "sandbox", "api", "proxy", "console"];

/**
 * What the launcher hands every service: parsed config (`C`: the shared base and the slices the
 * service declares, src/runtime/config.ts), shared storage, one logger.
 */
export type ServiceContext<C extends BaseConfig = BaseConfig> = {
  config: C;
  urls: ServiceUrls;
  logger: Logger;
  /** Opened and migrated once per process; absent for services that keep no storage (sandbox). */
  database: Database | undefined;
  /** The process's durable job queue on `database`, opened on first use and shared by the services. */
  jobQueue: () => Promise<JobQueue>;
};

/** A built service, ready to listen. `close` releases what the app itself does not own (queues, timers). */
export type BuiltService = {
  name: ServiceName;
  app: App;
  port: number;
  /** Lines printed at start-up (URLs, demo login, ids). */
  banner?: () => Promise<string[]> | string[];
  close?: () => Promise<void>;
};

export type ServiceFactory<C extends BaseConfig = BaseConfig> = (ctx: ServiceContext<C>) => Promise<BuiltService>;

/** Width of the start banner's labels: every service's lines line up under one another. */
const BANNER_LABEL_WIDTH = 19;

/** One line of the start banner: the label padded so the values form a column. */
export const bannerLine = (label: string, value: string) => `${label.padEnd(BANNER_LABEL_WIDTH)}${value}`;

/**
 * A secret as the banner shows it: its value while it is the public local default (so a newcomer
 * can copy it), otherwise only where it comes from (a banner is not the place for real secrets).
 */
export const bannerSecret = (value: string, localDefault: string, variable: string) => (value === localDefault ? value : `(${variable})`);
