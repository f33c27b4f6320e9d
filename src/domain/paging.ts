// The events list's paging rules (the only paginated endpoint).

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** At most this many events of a club are reachable through paging. */
export const REACHABLE_ITEMS = 1000;

export interface PageWindow {
  offset: number;
  /** Rows to read; 0 once the page lies past the reachable items. */
  limit: number;
}

export function pageWindow(page: number, pageSize: number): PageWindow {
  const offset = (page - 1) * pageSize;
  return { offset, limit: Math.max(0, Math.min(pageSize, REACHABLE_ITEMS - offset)) };
}

/** The next page number, or null when this page reaches the end of what is reachable. */
export function nextPage(page: number, pageSize: number, totalItems: number): number | null {
  return page * pageSize < Math.min(totalItems, REACHABLE_ITEMS) ? page + 1 : null;
}
