export { classifySql, type SqlPiece, type SqlPieceKind } from './classify';
export { sqlSkeleton } from './skeleton';
export { touchedSchema, type TouchedSchema, type SchemaColumnRef } from './touched';
export { linkingMetrics, linkingMetricEntries, type LinkingSet, type LinkingMetrics, type PrfScores } from './linking';
