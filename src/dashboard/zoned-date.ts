/**
 * The instant a calendar day starts in an IANA time zone (the dashboard's date filters are in the
 * user's zone). Intl gives the zone's offset at an instant; two passes settle a day that starts
 * near a DST change.
 */
export function startOfDayIn(date: string, zone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const utc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(utc) || new Date(utc).toISOString().slice(0, 10) !== date) return null;
  let at = utc - offsetMs(utc, zone);
  at = utc - offsetMs(at, zone);
  return new Date(at);
}

/** The zone's offset from UTC at `instant`, in ms (positive east of Greenwich). */
export function offsetMs(instant: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
}
