// The part of d3-flame-graph 5 (which ships no types) that the UI uses.
declare module "d3-flame-graph" {
  /** A d3-hierarchy node of the user's datum, with the layout's x0 / x1 (share of the root). */
  export interface FlameGraphNode<Datum> {
    data: Datum;
    value: number;
    depth: number;
    x0: number;
    x1: number;
    highlight?: boolean;
    parent: FlameGraphNode<Datum> | null;
    children?: FlameGraphNode<Datum>[];
  }

  export interface FlameGraph<Datum> {
    (selection: unknown): void;
    width(width: number): FlameGraph<Datum>;
    height(height: number): FlameGraph<Datum>;
    minHeight(height: number): FlameGraph<Datum>;
    cellHeight(height: number): FlameGraph<Datum>;
    minFrameSize(size: number): FlameGraph<Datum>;
    transitionDuration(ms: number): FlameGraph<Datum>;
    sort(
      enabled: boolean | ((a: FlameGraphNode<Datum>, b: FlameGraphNode<Datum>) => number),
    ): FlameGraph<Datum>;
    inverted(enabled: boolean): FlameGraph<Datum>;
    title(title: string): FlameGraph<Datum>;
    selfValue(enabled: boolean): FlameGraph<Datum>;
    setColorMapper(
      mapper: (node: FlameGraphNode<Datum>, originalColor: string) => string,
    ): FlameGraph<Datum>;
    setLabelHandler(handler: (node: FlameGraphNode<Datum>) => string): FlameGraph<Datum>;
    setDetailsHandler(handler: (text: string | null) => void): FlameGraph<Datum>;
    setSearchHandler(
      handler: (results: FlameGraphNode<Datum>[], sum: number, total: number) => void,
    ): FlameGraph<Datum>;
    setSearchMatch(
      match: (node: FlameGraphNode<Datum>, term: string, ignoreCase?: boolean) => boolean,
    ): FlameGraph<Datum>;
    onClick(handler: (node: FlameGraphNode<Datum>) => void): FlameGraph<Datum>;
    search(term: string): void;
    clear(): void;
    resetZoom(): void;
    update(data?: Datum): FlameGraph<Datum>;
    destroy(): FlameGraph<Datum>;
  }

  export default function flamegraph<Datum = unknown>(): FlameGraph<Datum>;
}
