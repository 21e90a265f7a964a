-- Item results are counted on their run as they are written (RunRepository.materialize), so that the stage job that
-- closes an item learns from the run's row whether it closed the run's last one, instead of counting the run's item
-- results (100,000 at scale) after every final stage. The count only tells when to look: closing a run still counts
-- exactly, under the run's lock. Workers of the version before count nothing: a run whose last item one of them
-- closes is closed by the reconciler once the run stops moving.
ALTER TABLE runs ADD COLUMN closed_items integer NOT NULL DEFAULT 0;
UPDATE runs SET closed_items = n.closed FROM (SELECT run_id, count(*)::int AS closed FROM item_results GROUP BY run_id) n WHERE runs.id = n.run_id;
