-- A parse failure (the method's final answer held no SQL) is its own verdict, counted apart from wrong SQL: the
-- evaluate stage records `parseFailed`, item results copy it, a variant's summary counts it. EX still counts such an
-- item as not correct. Rows from before this were written by the evaluate stage as `no prediction: ...` (correct and
-- errored both false): those are the same verdict and are marked so.
ALTER TABLE item_results ADD COLUMN parse_failed boolean NOT NULL DEFAULT false;
ALTER TABLE run_summaries ADD COLUMN parse_failures integer NOT NULL DEFAULT 0;
UPDATE item_results SET parse_failed = true WHERE reason LIKE 'no prediction: %' AND NOT correct AND NOT errored AND predicted_sql IS NULL;
UPDATE run_summaries s SET parse_failures = f.n
FROM (SELECT run_id, variant_id, count(*)::int AS n FROM item_results WHERE parse_failed GROUP BY run_id, variant_id) f
WHERE f.run_id = s.run_id AND f.variant_id = s.variant_id;
