// Fixed windows aligned to the UTC clock: a window's counter resets at its end, and Retry-After is the
// time to that end. Months are calendar months.
export type WindowName = 'second' | 'minute' | 'day' | 'month';

export const WINDOW_SECONDS: Record<Exclude<WindowName, 'month'>, number> = {
  second: 1,
  minute: 60,
  day: 86_400,
};

/** The current window's id (for counter keys) and its end, in ms. */
let lastMonth = { startMs: 0, endMs: 0, id: '' };

export function windowAt(window: WindowName, nowMs: number): { id: string; endMs: number } {
  if (window === 'month') {
    if (nowMs < lastMonth.startMs || nowMs >= lastMonth.endMs) {
      const d = new Date(nowMs);
      const y = d.getUTCFullYear();
      const m = d.getUTCMonth();
      lastMonth = {
        startMs: Date.UTC(y, m, 1),
        endMs: Date.UTC(y, m + 1, 1),
        id: `${y}${String(m + 1).padStart(2, '0')}`,
      };
    }
    return lastMonth;
  }
  const size = WINDOW_SECONDS[window] * 1000;
  const index = Math.floor(nowMs / size);
  return { id: String(index), endMs: (index + 1) * size };
}
