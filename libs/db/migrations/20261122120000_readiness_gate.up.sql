-- A stage is ready when all its inputs have results. A stage that reads a whole training set lists hundreds of input
-- keys; reading that array (TOASTed) for every finished training stage cost more than the rest of advancing. Its last
-- input in plan order, kept beside the array, is checked first: while it is missing, the array is never read.
-- NULL for a stage without inputs, and for rows planned before this column existed (they are checked in full).
ALTER TABLE run_stages ADD COLUMN last_input_key text;
