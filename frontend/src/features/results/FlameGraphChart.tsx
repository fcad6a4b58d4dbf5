import flamegraph, { type FlameGraph } from "d3-flame-graph";
import { select } from "d3-selection";
import { type FormEvent, useEffect, useLayoutEffect, useRef, useState } from "react";
import { type FlameDatum, FRAME_COLORS, frameLabel } from "./exportLocation";
import "./serviceResults.css";

/** What the chart draws: a name, the width (a node's total, children included) and children. */
export interface ChartDatum {
  name: string;
  value: number;
  children: ChartDatum[];
}

interface Props<Datum extends ChartDatum> {
  data: Datum;
  label: string;
  /** A frame's fill (search matches are always highlighted); default: by export category. */
  colorOf?: (datum: Datum) => string;
  /** A frame's hover text, given the root's value; default: samples and share. */
  labelOf?: (datum: Datum, total: number) => string;
  /** What the values count, for the search summary ("samples", "µs per request"). */
  valueUnit?: string;
}

const categoryColor = (datum: ChartDatum) =>
  FRAME_COLORS[(datum as FlameDatum).category] ?? FRAME_COLORS.other;
const samplesLabel = (datum: ChartDatum, total: number) => frameLabel(datum as FlameDatum, total);

const SEARCH_COLOR = "#e600e6";

function reducedMotion(): boolean {
  return globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * d3-flame-graph of one configuration's merged stacks, coloured by what each frame counts
 * as (see exportLocation.ts), or of a differential tree with its own colours. Click a frame to
 * zoom; the search box highlights matching functions and "Reset zoom" goes back to the whole
 * tree.
 */
export function FlameGraphChart<Datum extends ChartDatum = FlameDatum>({
  data,
  label,
  colorOf = categoryColor,
  labelOf = samplesLabel,
  valueUnit = "samples",
}: Props<Datum>) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<FlameGraph<Datum> | null>(null);
  const [details, setDetails] = useState<string | null>(null);
  const [searchSummary, setSearchSummary] = useState<string | null>(null);
  const [term, setTerm] = useState("");

  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    const width = () => Math.max(320, Math.floor(element.clientWidth || 960));
    const total = data.value;
    const instance = flamegraph<Datum>()
      .width(width())
      .cellHeight(18)
      .minFrameSize(2)
      .transitionDuration(reducedMotion() ? 0 : 300)
      .sort(true)
      .setColorMapper((node) => (node.highlight ? SEARCH_COLOR : colorOf(node.data)))
      .setLabelHandler((node) => labelOf(node.data, total))
      .setDetailsHandler((text) => setDetails(text))
      .setSearchMatch(
        (node, search) =>
          Boolean(search) && node.data.name.toLowerCase().includes(search.toLowerCase()),
      )
      .setSearchHandler((results, sum, all) =>
        setSearchSummary(
          `${results.length} frame${results.length === 1 ? "" : "s"} match, ${sum.toLocaleString("en-US")} of ${all.toLocaleString("en-US")} ${valueUnit} (${all > 0 ? ((sum / all) * 100).toFixed(1) : "0"} %)`,
        ),
      );
    select(element).datum(data).call(instance);
    chart.current = instance;
    let lastWidth = width();
    const observer =
      typeof ResizeObserver === "undefined"
        ? null
        : new ResizeObserver(() => {
            const next = width();
            if (next === lastWidth) return;
            lastWidth = next;
            instance.width(next).update();
          });
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      instance.destroy();
      chart.current = null;
    };
  }, [data, colorOf, labelOf, valueUnit]);

  // A new tree starts without a search.
  useEffect(() => {
    if (data) {
      setTerm("");
      setSearchSummary(null);
      setDetails(null);
    }
  }, [data]);

  const search = (event: FormEvent) => {
    event.preventDefault();
    if (term.trim() === "") {
      chart.current?.clear();
      setSearchSummary(null);
    } else {
      chart.current?.search(term.trim());
    }
  };

  return (
    <div className="flame">
      {/* biome-ignore lint/a11y/useSemanticElements: a search that submits needs the form; role="search" is what <search> would add */}
      <form className="toolbar flame-toolbar" onSubmit={search} role="search">
        <label>
          Find a function{" "}
          <input
            type="search"
            value={term}
            placeholder="e.g. export"
            onChange={(event) => setTerm(event.target.value)}
          />
        </label>
        <button type="submit" className="button-small">
          Highlight
        </button>
        <button
          type="button"
          className="button-small"
          onClick={() => {
            chart.current?.resetZoom();
          }}
        >
          Reset zoom
        </button>
        {searchSummary && (
          <span className="muted small" aria-live="polite">
            {searchSummary}
          </span>
        )}
      </form>
      <div
        ref={container}
        className="flame-graph"
        role="img"
        aria-label={label}
        data-testid="flame-graph-svg"
      />
      <p className="flame-details small mono" aria-live="polite">
        {details ?? "Hover a frame for its samples; click it to zoom in."}
      </p>
    </div>
  );
}
