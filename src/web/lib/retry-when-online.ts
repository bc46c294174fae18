/** Resolves when the device is back on a network. */
function backOnline(): Promise<void> {
  return new Promise((resolve) => {
    window.addEventListener("online", () => resolve(), { once: true });
  });
}

/**
 * A script fetched on first use (a page, a language's dictionary): when it cannot be fetched
 * because the device is offline, fetched again once the device is back, so a link followed
 * offline waits (the site says it is waiting) and then shows the page. Otherwise the router
 * reloads the whole site to get a newer build's scripts, and offline that reload puts the
 * browser's own error page in place of the site. Any other failure is left to the caller.
 */
export function retryWhenOnline<T>(fetchChunk: () => Promise<T>): () => Promise<T> {
  const load = async (): Promise<T> => {
    try {
      return await fetchChunk();
    } catch (error) {
      if (navigator.onLine) throw error;
      await backOnline();
      return load();
    }
  };
  return load;
}
