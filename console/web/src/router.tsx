/** A small path router: the page is the first path segment, the rest is its argument (`/traces/<trace id>`). */
import { useEffect, useState } from 'react';

export interface Location {
  page: string;
  rest: string;
  query: URLSearchParams;
}

function read(): Location {
  const [page = 'functions', ...rest] = window.location.pathname.split('/').filter((p) => p !== '');
  return { page, rest: rest.map(decodeURIComponent).join('/'), query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();

export function navigate(to: string): void {
  window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export function useLocation(): Location {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = (): void => setLocation(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

export function Link(props: { to: string; children: React.ReactNode; className?: string; testId?: string }) {
  return (
    <a
      href={props.to}
      className={props.className}
      data-testid={props.testId}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
