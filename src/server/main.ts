import { startApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";

try {
  const config = loadConfig();
  const app = await startApp(config);
  const shown = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  console.log(`Tidings ${config.version} is listening on http://${shown}:${app.server.port}`);
  const stop = async () => {
    await app.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
