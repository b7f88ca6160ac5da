export const OUTCOMES = ["DIFFERENT", "SAME", "UNKNOWN"] as const;
export type Outcome = (typeof OUTCOMES)[number];
