import { formatDate } from "../../format/format.js";

/**
 * A moment as every page writes it (the reader's locale, medium date and time); hovering gives
 * the full date, time and zone.
 */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>–</>;
  const full = new Date(iso).toLocaleString(undefined, { dateStyle: "full", timeStyle: "long" });
  return (
    <time dateTime={iso} title={full}>
      {formatDate(iso)}
    </time>
  );
}
