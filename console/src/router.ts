import { useEffect, useState } from 'preact/hooks';

/** Paths inside the console, without the /console prefix: "/wallet", "/jobs/abc". */
const BASE = '/console';

export function currentPath(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return (p === '' ? '/' : p) + location.search;
}

export function href(path: string): string {
  return `${BASE}${path}`;
}

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', href(path));
  else history.pushState(null, '', href(path));
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const on = () => setPath(currentPath());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return path;
}

/** Plain links navigate inside the console without a page load; modified clicks keep their meaning. */
export function onLinkClick(e: MouseEvent, path: string): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(path);
}

export function queryParam(name: string): string | undefined {
  return new URLSearchParams(location.search).get(name) ?? undefined;
}
