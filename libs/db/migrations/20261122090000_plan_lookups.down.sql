ALTER INDEX run_stages_input_keys RESET (fastupdate);
