import { startE2eServer } from "./server";

/** Starts one real server on a free port with an empty data folder for the whole run. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const server = await startE2eServer();
  process.env.TIDINGS_URL = server.url;
  process.env.TIDINGS_DATA_DIR = server.dataDir;
  return () => server.stop();
}
