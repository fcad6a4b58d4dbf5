import type { ConfigurationAggregates } from "../../api/types";
import { Empty } from "../../components/States";
import { ThreadGroupsTable } from "./ThreadGroupsTable";
import { hasPerSpanFigures, threadTables } from "./threadGroups";
import "./threadGroups.css";

interface Props {
  configurations: ConfigurationAggregates[];
  /** Every configuration of the spec, for stable colours and order. */
  order: string[];
  /** Each configuration's concurrency in words (lib/concurrency concurrencyByConfiguration). */
  concurrency: Record<string, string>;
}

/**
 * Where each configuration's CPU and context switches went, thread group by thread group, per
 * request and, where the spans a request makes are known, per span.
 */
export function ThreadGroups({ configurations, order, concurrency }: Props) {
  const tables = threadTables(configurations, order, concurrency);
  if (tables.length === 0) {
    return (
      <Empty>
        <p>No thread figures: they come from completed rounds.</p>
      </Empty>
    );
  }
  const perSpan = hasPerSpanFigures(configurations);
  const batchWorker = tables.some((table) => table.rows.some((row) => row.batchWorker));
  return (
    <>
      <p className="muted small">
        Each group is the threads of one name (trailing digits as *), medians over rounds; per span
        {perSpan
          ? " where the spans a request makes are known"
          : ": unknown, as the spans a request makes are not known"}
        .
      </p>
      {batchWorker && (
        <p className="small" data-testid="batch-worker-finding">
          Seed 000's finding: the batch processor worker's CPU and context switches per span rise
          with the request threads feeding it; compare its row across configurations.
        </p>
      )}
      <div className="thread-tables">
        {tables.map((table) => (
          <ThreadGroupsTable
            key={table.configuration}
            table={table}
            index={order.indexOf(table.configuration)}
            perSpan={perSpan}
          />
        ))}
      </div>
    </>
  );
}
