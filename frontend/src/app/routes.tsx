import type { RouteObject } from "react-router";
import { CalibrationPage } from "../features/calibrations/CalibrationPage";
import { CalibrationsPage } from "../features/calibrations/CalibrationsPage";
import { NewCalibrationPage } from "../features/calibrations/NewCalibrationPage";
import { CheckPage } from "../features/checks/CheckPage";
import { ChecksPage } from "../features/checks/ChecksPage";
import { NewCheckPage } from "../features/checks/NewCheckPage";
import { ExperimentsPage } from "../features/experiments/ExperimentsPage";
import { StackPage } from "../features/health/StackPage";
import { HistoryPage } from "../features/history/HistoryPage";
import { NewExperimentPage } from "../features/new-experiment/NewExperimentPage";
import { NewPipelinePage } from "../features/new-pipeline/NewPipelinePage";
import { ServicePage } from "../features/services/ServicePage";
import { NewTuningPage } from "../features/tunings/NewTuningPage";
import { TuningPage } from "../features/tunings/TuningPage";
import { TuningsPage } from "../features/tunings/TuningsPage";
import { AppLayout } from "./AppLayout";
import { ExperimentPage } from "./ExperimentPage";
import { NotFoundPage } from "./NotFoundPage";
import { RouteError } from "./RouteError";

/** A URL per page, so any of them can be shared. */
export const routes: RouteObject[] = [
  {
    path: "/",
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <ExperimentsPage /> },
      { path: "experiments/new", element: <NewExperimentPage /> },
      { path: "experiments/:id", element: <ExperimentPage /> },
      { path: "pipelines/new", element: <NewPipelinePage /> },
      { path: "checks", element: <ChecksPage /> },
      { path: "checks/new", element: <NewCheckPage /> },
      { path: "checks/:id", element: <CheckPage /> },
      { path: "history", element: <HistoryPage /> },
      { path: "services/:service", element: <ServicePage /> },
      { path: "calibrations", element: <CalibrationsPage /> },
      { path: "calibrations/new", element: <NewCalibrationPage /> },
      { path: "calibrations/:id", element: <CalibrationPage /> },
      { path: "tunings", element: <TuningsPage /> },
      { path: "tunings/new", element: <NewTuningPage /> },
      { path: "tunings/:id", element: <TuningPage /> },
      { path: "stack", element: <StackPage /> },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
];
