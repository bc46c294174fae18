import {
  type AsyncRouteComponent,
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  notFound,
  type RouteComponent,
  redirect,
} from "@tanstack/react-router";
import { isPrefix, localeOfPrefix, resolvePath } from "../common/locales.ts";
import { PageFailed, PagePending } from "./components/PageStates.tsx";
import { FeatureGate } from "./components/resting/RestingPage.tsx";
import { Shell } from "./components/Shell.tsx";
import type { Feature } from "./lib/feature-paths.ts";
import { loadLocale } from "./lib/i18n.tsx";
import { retryWhenOnline } from "./lib/retry-when-online.ts";
import { AboutPage } from "./routes/about.tsx";
import { DiscoverPage } from "./routes/discover.tsx";
import { FaqPage } from "./routes/faq.tsx";
import { HomePage } from "./routes/home.tsx";
import { MyBottlesPage } from "./routes/my-bottles.tsx";
import { NotFoundPage } from "./routes/not-found.tsx";
import { PrivacyPage } from "./routes/privacy.tsx";
import { PublicBottlesPage } from "./routes/public-bottles.tsx";
import { RandomChatPage } from "./routes/random-chat.tsx";
import { TermsPage } from "./routes/terms.tsx";

// The pages a visit most often starts on come with the first load: served over HTTP/1.1 (one
// binary, no proxy), every further script costs a round trip, and splitting them made many.
// The pages built on forms (writing, signing in, contact, moderation) bring the form library
// and its schemas, the largest part of the scripts: each is its own chunk, fetched when a link
// to it is hovered or followed.
function lazyPage<T extends Record<string, unknown>, K extends keyof T & string>(
  fetchChunk: () => Promise<T>,
  name: K,
) {
  return lazyRouteComponent(retryWhenOnline(fetchChunk), name);
}
const AuthPage = lazyPage(() => import("./routes/auth.tsx"), "AuthPage");
const ContactPage = lazyPage(() => import("./routes/contact.tsx"), "ContactPage");
const CreatePage = lazyPage(() => import("./routes/create.tsx"), "CreatePage");
const ModerationPage = lazyPage(() => import("./routes/moderation.tsx"), "ModerationPage");

const rootRoute = createRootRoute({
  // The same redirects the server answers, for navigation inside the app.
  beforeLoad: ({ location }) => {
    const language = navigator.languages?.[0] ?? navigator.language;
    const resolution = resolvePath(location.pathname, language);
    if (resolution.kind === "redirect")
      throw redirect({ href: resolution.location, replace: true });
  },
  component: Shell,
  notFoundComponent: NotFoundPage,
});

const langRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "$lang",
  beforeLoad: async ({ params }) => {
    if (!isPrefix(params.lang)) throw notFound();
    // The page's dictionary arrives before the page draws, so it never shows another language.
    await loadLocale(localeOfPrefix(params.lang));
  },
});

const page = (path: string, component: RouteComponent) =>
  createRoute({ getParentRoute: () => langRoute, path, component });

/**
 * A page of a part the operator can switch off: the resting page stands in while it is off.
 * The page's chunk is still fetched ahead, on hover.
 */
function resting(
  feature: Feature,
  Page: RouteComponent & Partial<Pick<AsyncRouteComponent<object>, "preload">>,
): RouteComponent {
  const Gated = () => (
    <FeatureGate feature={feature}>
      <Page />
    </FeatureGate>
  );
  return Object.assign(Gated, { preload: Page.preload });
}

const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: "auth", component: AuthPage }),
  langRoute.addChildren([
    page("/", HomePage),
    page("create", resting("bottles", CreatePage)),
    page("discover", resting("bottles", DiscoverPage)),
    page("about", AboutPage),
    page("privacy", PrivacyPage),
    page("terms", TermsPage),
    page("contact", ContactPage),
    page("faq", FaqPage),
    page("public-bottles", resting("publicBottles", PublicBottlesPage)),
    page("random-chat", resting("chat", RandomChatPage)),
    // Not resting with the bottles: a writer can always see and sink their own.
    page("my-bottles", MyBottlesPage),
    page("moderation", ModerationPage),
    // The sign-in page in the prefix's language (the header links to /auth).
    page("auth", AuthPage),
  ]),
]);

export const router = createRouter({
  routeTree,
  notFoundMode: "root",
  trailingSlash: "never",
  scrollRestoration: true,
  defaultPreload: "intent",
  // Rendered inside the shell, so in the page's language.
  defaultPendingComponent: PagePending,
  defaultErrorComponent: PageFailed,
});

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
