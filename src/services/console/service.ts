import type { ServiceFactory } from "../../shared/service.js";
import { buildConsoleApp } from "./app.js";

/** The operator console as the launcher starts it: static files and settings, no storage. */
export const createConsoleService: ServiceFactory = async ({ config, urls, logger }) => {
  const app = await buildConsoleApp({ config, logger, urls });
  return {
    name: "console",
    app,
    port: config.CONSOLE_PORT,
    banner: () => [`Operator console:   ${urls.console}/  (sign in as demo; client hirebridge-console)`],
  };
};
