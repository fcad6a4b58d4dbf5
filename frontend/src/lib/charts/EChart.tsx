import { useEffect, useLayoutEffect, useRef } from "react";
import { type EChartOption, echarts } from "./echarts";
import "./charts.css";

interface Props {
  /** Memoise: a new object redraws the chart. */
  option: EChartOption;
  height: number;
}

/** An ECharts chart (SVG) that fills its container's width and follows its resizes. */
export function EChart({ option, height }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<typeof echarts.init> | null>(null);
  const latest = useRef(option);
  latest.current = option;

  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    const instance = echarts.init(element, null, { renderer: "svg" });
    instance.setOption(latest.current);
    chart.current = instance;
    const observer =
      typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => instance.resize());
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new height restyles the container; the chart must measure it again
  useEffect(() => {
    chart.current?.resize();
  }, [height]);

  return <div ref={container} className="chart echart" style={{ height }} />;
}
