/**
 * The rounds in which telemetrygen delivered under 95% of the asked rate
 * (PipelineDiagnostics.saturated_rounds): there the rate is the generator's limit, never the
 * Collector's. Nothing when none was.
 */
export function SaturatedRounds({ saturated }: { saturated: readonly string[] }) {
  if (saturated.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="saturated-rounds">
      <p>
        <strong>Load generator saturated:</strong> telemetrygen delivered under 95% of the asked
        span rate during {saturated.join(", ")}; there the rate is the generator's limit, not the
        Collector's.
      </p>
      <p className="small">
        The <a href="#rounds-title">rounds</a> below give telemetrygen's rate in each. Lower the
        span rate to measure the pipeline rather than the generator.
      </p>
    </div>
  );
}
