-- Every stored EX names the scorer and version that produced it (`bird-ex@2`, `spider-ex@2`): the evaluate stage
-- records it in its output, item results copy it, and a variant's summary carries the scorers of its items. Rows
-- from before this have none (NULL): they were scored by the evaluate stage before it used the named scorers.
ALTER TABLE item_results ADD COLUMN scorer text;
ALTER TABLE run_summaries ADD COLUMN scorer text;
