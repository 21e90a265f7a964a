ALTER TABLE variants DROP COLUMN resolved_knobs;
DROP TABLE retrieval_curves;
