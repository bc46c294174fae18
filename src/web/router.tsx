import {
  createRootRoute,
  createRoute,
  createRouter,
  notFound,
  redirect,
} from "@tanstack/react-router";
import { isPrefix, resolvePath } from "../common/locales.ts";
import { Shell } from "./components/Shell.tsx";
import { AboutPage } from "./routes/about.tsx";
import { AuthPage } from "./routes/auth.tsx";
import { ContactPage } from "./routes/contact.tsx";
import { CreatePage } from "./routes/create.tsx";
import { DiscoverPage } from "./routes/discover.tsx";
import { FaqPage } from "./routes/faq.tsx";
import { HomePage } from "./routes/home.tsx";
import { NotFoundPage } from "./routes/not-found.tsx";
import { PrivacyPage } from "./routes/privacy.tsx";
import { PublicBottlesPage } from "./routes/public-bottles.tsx";
import { RandomChatPage } from "./routes/random-chat.tsx";
import { TermsPage } from "./routes/terms.tsx";

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
  beforeLoad: ({ params }) => {
    if (!isPrefix(params.lang)) throw notFound();
  },
});

const page = (path: string, component: () => React.ReactNode) =>
  createRoute({ getParentRoute: () => langRoute, path, component });

const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: "auth", component: AuthPage }),
  langRoute.addChildren([
    page("/", HomePage),
    page("create", CreatePage),
    page("discover", DiscoverPage),
    page("about", AboutPage),
    page("privacy", PrivacyPage),
    page("terms", TermsPage),
    page("contact", ContactPage),
    page("faq", FaqPage),
    page("public-bottles", PublicBottlesPage),
    page("random-chat", RandomChatPage),
  ]),
]);

export const router = createRouter({
  routeTree,
  notFoundMode: "root",
  trailingSlash: "never",
  scrollRestoration: true,
  defaultPreload: "intent",
});

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
