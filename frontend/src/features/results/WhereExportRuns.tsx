import { lazy, Suspense, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { StackSummary } from "../../api/types";
import { Empty, Loading } from "../../components/States";
import { formatMicros, formatNumber } from "../../lib/format";
import { EXPORT_CATEGORIES, exportLocations } from "./exportLocation";
import { FlameGraphPanel } from "./FlameGraphPanel";
import "./serviceResults.css";

// ECharts is loaded with the first results page that needs it, not with the app.
const ExportBarChart = lazy(() =>
  import("./ExportBarChart").then((module) => ({ default: module.ExportBarChart })),
);

interface Props {
  experimentId: string;
  whereExportRuns: Record<string, StackSummary>;
  /** Configurations in spec order. */
  order: string[];
  /** The baseline configuration, which the flame graph's differential view compares with first. */
  baseline?: string | null;
}

// The page's URL names the flame graph's configuration (?flame=…), so a link can open it.
const FLAME_PARAM = "flame";

/**
 * Where export runs: a stacked bar per configuration (export on the request path, in the
 * background, unattributed, other SDK work, application), what the sampler can and cannot
 * tell apart, and the flame graph of one configuration.
 */
export function WhereExportRuns({ experimentId, whereExportRuns, order, baseline = null }: Props) {
  const locations = useMemo(
    () => exportLocations(whereExportRuns, order),
    [whereExportRuns, order],
  );
  const withSamples = locations.bars.map((bar) => bar.configuration);
  const [params, setParams] = useSearchParams();
  const requested = params.get(FLAME_PARAM);
  const selected = requested && withSamples.includes(requested) ? requested : null;
  const select = (configuration: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.set(FLAME_PARAM, configuration);
        return next;
      },
      { replace: true },
    );
  const current =
    selected ??
    locations.bars.find((bar) => bar.exportPercent > 0)?.configuration ??
    withSamples[0] ??
    null;

  return (
    <>
      {locations.bars.length === 0 ? (
        <Empty>
          <p>No configuration has stack samples, so where export runs is not known.</p>
        </Empty>
      ) : (
        <>
          <Suspense fallback={<Loading>Loading the chart…</Loading>}>
            <ExportBarChart bars={locations.bars} />
          </Suspense>
          <div className="table-scroll">
            <table className="export-table">
              <caption className="visually-hidden">
                Share of CPU samples per configuration and category
              </caption>
              <thead>
                <tr>
                  <th scope="col">Configuration</th>
                  {EXPORT_CATEGORIES.map((category) => (
                    <th scope="col" key={category.key} title={category.description}>
                      <span
                        className="swatch"
                        style={{ background: category.color }}
                        aria-hidden="true"
                      />
                      {category.label}
                    </th>
                  ))}
                  <th scope="col" title="CPU per request times the export share">
                    Export CPU / request
                  </th>
                  <th scope="col">Samples</th>
                </tr>
              </thead>
              <tbody>
                {locations.bars.map((bar) => (
                  <tr key={bar.configuration} data-configuration={bar.configuration}>
                    <th scope="row">
                      {bar.configuration}
                      {!bar.distinguishable && (
                        <div className="cannot-tell small">
                          cannot tell apart request path and background
                        </div>
                      )}
                    </th>
                    {bar.percents.map((value, index) => (
                      <td key={EXPORT_CATEGORIES[index].key} className="number">
                        {value.toFixed(1)} %
                      </td>
                    ))}
                    <td className="number">{formatMicros(bar.exportCpuPerRequestUs)}</td>
                    <td className="number">
                      {formatNumber(bar.samples, 0)}
                      <div className="muted small">{bar.sampler}</div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {locations.notes.length > 0 && (
        <div className="sampler-notes">
          {locations.notes.map((note) => (
            <p key={`${note.sampler}-${note.note}`} className="small">
              <strong>{note.sampler}</strong>{" "}
              <span className="muted">({note.configurations.join(", ")})</span>: {note.note}
            </p>
          ))}
        </div>
      )}
      {(locations.missing.length > 0 || locations.bars.some((b) => b.problems.length > 0)) && (
        <ul className="problems">
          {locations.missing.map((missing) => (
            <li key={missing.configuration}>
              <strong>{missing.configuration}</strong>: no stack samples —{" "}
              {missing.problems.join("; ")}
            </li>
          ))}
          {locations.bars
            .filter((bar) => bar.problems.length > 0)
            .map((bar) => (
              <li key={bar.configuration}>
                <strong>{bar.configuration}</strong>: {bar.problems.join("; ")}
              </li>
            ))}
        </ul>
      )}
      {current && withSamples.length > 0 ? (
        <FlameGraphPanel
          experimentId={experimentId}
          configurations={withSamples}
          configuration={current}
          onConfiguration={select}
          baseline={baseline}
        />
      ) : null}
    </>
  );
}
