import { useEffect, useLayoutEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { AlignedData } from "./align";

export type ChartOptions = Omit<uPlot.Options, "width" | "height"> & { height: number };

interface Props {
  /** Memoise: a new object re-creates the chart. */
  options: ChartOptions;
  data: AlignedData;
}

/** A uPlot chart that fills its container's width and follows its resizes. */
export function UPlotChart({ options, data }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latestData = useRef(data);
  latestData.current = data;

  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    const width = () => Math.max(320, Math.floor(element.clientWidth || 640));
    const instance = new uPlot(
      { ...options, width: width() },
      latestData.current as uPlot.AlignedData,
      element,
    );
    chart.current = instance;
    const observer =
      typeof ResizeObserver === "undefined"
        ? null
        : new ResizeObserver(() => instance.setSize({ width: width(), height: options.height }));
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      instance.destroy();
      chart.current = null;
    };
  }, [options]);

  useEffect(() => {
    chart.current?.setData(data as uPlot.AlignedData);
  }, [data]);

  return <div ref={container} className="chart" />;
}
