// Calibration: sweep a threshold over a corpus and measure it against labels.

export { loadLabels, parseLabels, type Label, type LabelKind, type Labels } from './labels.js';
export { gridPoints, MAX_GRID_POINTS, MAX_PARAM_VALUES, MAX_PARAMS, parseParam, parseParams, type SweepParam } from './param.js';
export {
  evaluatePoint,
  parseMaxFpr,
  recommend,
  sweep,
  type PositiveLevel,
  type SweepCount,
  type SweepLabelSummary,
  type SweepMetrics,
  type SweepOptions,
  type SweepPoint,
  type SweepRecommendation,
  type SweepResult,
} from './sweep.js';
