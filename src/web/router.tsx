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
import { HomePage } from "./routes/home.tsx";
import { NotFoundPage } from "./routes/not-found.tsx";

// The home page comes with the first load; every other page is its own chunk, fetched when
// a link to it is hovered or followed.
function lazyPage<T extends Record<string, unknown>, K extends keyof T & string>(
  fetchChunk: () => Promise<T>,
  name: K,
) {
  return lazyRouteComponent(retryWhenOnline(fetchChunk), name);
}
const AboutPage = lazyPage(() => import("./routes/about.tsx"), "AboutPage");
const AuthPage = lazyPage(() => import("./routes/auth.tsx"), "AuthPage");
const ContactPage = lazyPage(() => import("./routes/contact.tsx"), "ContactPage");
const CreatePage = lazyPage(() => import("./routes/create.tsx"), "CreatePage");
const DiscoverPage = lazyPage(() => import("./routes/discover.tsx"), "DiscoverPage");
const FaqPage = lazyPage(() => import("./routes/faq.tsx"), "FaqPage");
const ModerationPage = lazyPage(() => import("./routes/moderation.tsx"), "ModerationPage");
const MyBottlesPage = lazyPage(() => import("./routes/my-bottles.tsx"), "MyBottlesPage");
const PrivacyPage = lazyPage(() => import("./routes/privacy.tsx"), "PrivacyPage");
const PublicBottlesPage = lazyPage(
  () => import("./routes/public-bottles.tsx"),
  "PublicBottlesPage",
);
const RandomChatPage = lazyPage(() => import("./routes/random-chat.tsx"), "RandomChatPage");
const TermsPage = lazyPage(() => import("./routes/terms.tsx"), "TermsPage");

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
function resting(feature: Feature, Page: AsyncRouteComponent<object>): RouteComponent {
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
