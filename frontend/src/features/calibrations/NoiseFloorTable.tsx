import type { NoiseFloor } from "../../api/types";
import { describeNoiseFloor } from "../../components/results/overhead";
import "./calibrations.css";

/** A noise floor per metric: ± relative and absolute at its paired rounds, or why unknown. */
export function NoiseFloorTable({ floors }: { floors: Record<string, NoiseFloor> }) {
  const rows = Object.values(floors);
  return (
    <div className="table-scroll">
      <table className="floor-table" data-testid="noise-floor-table">
        <caption>
          The smallest change of each metric these paired rounds tell from noise (95%), in % of the
          baseline and in the metric's unit at the baseline's level.
        </caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col" className="number">
              Relative
            </th>
            <th scope="col" className="number">
              In its unit
            </th>
            <th scope="col" className="number">
              Paired rounds
            </th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((floor) => {
            const text = describeNoiseFloor(floor);
            return (
              <tr key={floor.metric} data-metric={floor.metric}>
                <th scope="row">{floor.label}</th>
                <td className="number">{text?.relative ?? "unknown"}</td>
                <td className="number">{text?.absolute ?? "—"}</td>
                <td className="number">{floor.pairs}</td>
                <td className="small">{floor.note ?? ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
