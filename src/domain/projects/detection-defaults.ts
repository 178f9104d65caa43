/**
 * Built-in detection thresholds: the value of a threshold that neither the project nor its organization
 * sets (docs/api.md: project → organization → built-in). Both are probabilities in [0, 1]; 0.5 is the
 * neutral point, flagging an object or an order when the model leans more towards "AI" than not.
 */
export const BUILT_IN_DETECTION_THRESHOLDS = {
  object_flag_threshold: 0.5,
  weighted_confidence_threshold: 0.5,
} as const;
