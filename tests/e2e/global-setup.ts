import { startSite } from "./server";

/**
 * Starts the site for the whole run, with empty data (see startSite). Tests find its address in
 * TIDINGS_URL and what the operator CLI needs in TIDINGS_ADMIN_ENV.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const site = await startSite();
  process.env.TIDINGS_URL = site.url;
  // What `tidings operator add` needs to reach the site's database (see makeOperator).
  process.env.TIDINGS_ADMIN_ENV = JSON.stringify(site.adminEnv);
  return () => site.stop();
}
