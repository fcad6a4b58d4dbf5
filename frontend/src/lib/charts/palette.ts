// One colour per configuration, in spec order, shared by every chart of an experiment.
// Okabe–Ito colours (distinguishable with the common colour-vision deficiencies), then a few more.
const PALETTE = [
  "#1b1f24",
  "#0072b2",
  "#d55e00",
  "#009e73",
  "#cc79a7",
  "#e69f00",
  "#56b4e9",
  "#8c6d31",
  "#7b2cbf",
  "#b42318",
  "#2f6f4f",
  "#6b7280",
];

export function colorFor(index: number): string {
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length];
}
