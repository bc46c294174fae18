import { QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode, startTransition, useState } from "react";
import { createRoot } from "react-dom/client";
import { localeOfPrefix, splitPrefix } from "../common/locales.ts";
import { initialLocale, loadLocale, storedLocale } from "./lib/i18n.tsx";
import { createTrpcClient, queryClient, trpc } from "./lib/trpc.ts";
import { router } from "./router.tsx";

function currentLocale(): string {
  const { prefix } = splitPrefix(location.pathname);
  return prefix ? localeOfPrefix(prefix) : (storedLocale() ?? "en");
}

function App() {
  const [client] = useState(() => createTrpcClient(currentLocale));
  return (
    <trpc.Provider client={client} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </trpc.Provider>
  );
}

const root = document.getElementById("root");
if (root) {
  // The first page's dictionary comes before the first render (others load when chosen), and
  // so does the router's first load (the page's module): loaded only once mounted, its news
  // would draw the whole page again in one piece, where the first render yields between parts.
  const { prefix } = splitPrefix(location.pathname);
  await Promise.all([loadLocale(prefix ? localeOfPrefix(prefix) : initialLocale()), router.load()]);
  // As a transition, the first render yields to the browser between components instead of
  // holding the main thread until the whole page is built (a tap while it loads is answered).
  const app = createRoot(root);
  startTransition(() =>
    app.render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
}
