import type { ReactNode } from "react";
import { Link } from "react-router";
import { formatDateTime } from "../lib/format";
import { StatusBadge } from "./StatusBadge";

/** A list page's table (experiments, checks, calibrations): a header per column, a row per item. */
export function ListTable({
  className,
  columns,
  children,
}: {
  className: string;
  columns: string[];
  children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table className={className}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A row's head: the link to the item's page and, with `id`, its short id under it. */
export function NameCell({ to, name, id }: { to: string; name: ReactNode; id?: string }) {
  return (
    <th scope="row">
      <Link to={to}>{name}</Link>
      {id !== undefined && <div className="muted small mono">{id.slice(0, 8)}</div>}
    </th>
  );
}

/** The item's status, with what there is to say about it under the badge. */
export function StatusCell({ status, children }: { status: string; children?: ReactNode }) {
  return (
    <td>
      <StatusBadge status={status} />
      {children}
    </td>
  );
}

/** When the item was created. */
export function CreatedCell({ at }: { at: string }) {
  return (
    <td>
      <time dateTime={at}>{formatDateTime(at)}</time>
    </td>
  );
}
