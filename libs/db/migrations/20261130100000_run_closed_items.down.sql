ALTER TABLE runs DROP COLUMN closed_items;
